// Written for perfbound's tests; NOT compiler output. RMSNorm's memory pattern
// (issue 23, review item 1): every program reads its own 4096-element fp16 row
// of x and the same 4096-element fp16 weight w, and writes its row of out.
// The Python (the reduction of RMSNorm left out: it moves no GM bytes):
//
//   row = tl.program_id(0); cols = tl.arange(0, 4096)
//   x = tl.load(x_ptr + row * 4096 + cols); w = tl.load(w_ptr + cols)
//   tl.store(out_ptr + row * 4096 + cols, x * w)
//
// Arguments: x_ptr (0), w_ptr (1), out_ptr (2). Launch: grid [rows].
module {
  tt.func public @row_scale(%arg0: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %arg2: !tt.ptr<f16> {tt.divisibility = 16 : i32}) attributes {noinline = false} {
    %c4096_i32 = arith.constant 4096 : i32
    %0 = tt.get_program_id x : i32
    %1 = arith.muli %0, %c4096_i32 : i32
    %2 = tt.make_range {end = 4096 : i32, start = 0 : i32} : tensor<4096xi32>
    %3 = tt.splat %1 : i32 -> tensor<4096xi32>
    %4 = arith.addi %3, %2 : tensor<4096xi32>
    %5 = tt.splat %arg0 : !tt.ptr<f16> -> tensor<4096x!tt.ptr<f16>>
    %6 = tt.addptr %5, %4 : tensor<4096x!tt.ptr<f16>>, tensor<4096xi32>
    %7 = tt.load %6 : tensor<4096x!tt.ptr<f16>>
    %8 = tt.splat %arg1 : !tt.ptr<f16> -> tensor<4096x!tt.ptr<f16>>
    %9 = tt.addptr %8, %2 : tensor<4096x!tt.ptr<f16>>, tensor<4096xi32>
    %10 = tt.load %9 : tensor<4096x!tt.ptr<f16>>
    %11 = arith.mulf %7, %10 : tensor<4096xf16>
    %12 = tt.splat %arg2 : !tt.ptr<f16> -> tensor<4096x!tt.ptr<f16>>
    %13 = tt.addptr %12, %4 : tensor<4096x!tt.ptr<f16>>, tensor<4096xi32>
    tt.store %13, %11 : tensor<4096x!tt.ptr<f16>>
    tt.return
  }
}
