// Written for perfbound's tests: a loop whose load, add and store are each
// fenced by pipe_barrier[PIPE_ALL], so no two of them can overlap. Per block:
// 4 x (64 KiB GM->UB + 256 vector repeats + 64 KiB UB->GM).
func.func @pipe_all_loop(%arg0: i64 {hacc.arg_type = #hacc.arg_type<ffts_base_address>}, %arg1: memref<?xf32, #hivm.address_space<gm>>, %arg2: memref<?xf32, #hivm.address_space<gm>>, %arg3: i32, %arg4: i32, %arg5: i32) attributes {hacc.entry, hacc.function_kind = #hacc.function_kind<DEVICE>, hivm.func_core_type = #hivm.func_core_type<AIV>, mix_mode = "aiv"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16384 = arith.constant 16384 : index
  %c0_i64 = arith.constant 0 : i64
  %c65536_i64 = arith.constant 65536 : i64
  %c131072_i64 = arith.constant 131072 : i64
  %ub0 = hivm.hir.pointer_cast(%c0_i64) : memref<16384xf32, #hivm.address_space<ub>>
  %ub1 = hivm.hir.pointer_cast(%c65536_i64) : memref<16384xf32, #hivm.address_space<ub>>
  scf.for %i = %c0 to %c4 step %c1 {
    %off = arith.muli %i, %c16384 : index
    %src = memref.reinterpret_cast %arg1 to offset: [%off], sizes: [16384], strides: [1] : memref<?xf32, #hivm.address_space<gm>> to memref<16384xf32, strided<[1], offset: ?>, #hivm.address_space<gm>>
    hivm.hir.load ins(%src : memref<16384xf32, strided<[1], offset: ?>, #hivm.address_space<gm>>) outs(%ub0 : memref<16384xf32, #hivm.address_space<ub>>)
    hivm.hir.pipe_barrier[<PIPE_ALL>]
    hivm.hir.vadd ins(%ub0, %ub0 : memref<16384xf32, #hivm.address_space<ub>>, memref<16384xf32, #hivm.address_space<ub>>) outs(%ub1 : memref<16384xf32, #hivm.address_space<ub>>)
    hivm.hir.pipe_barrier[<PIPE_ALL>]
    %dst = memref.reinterpret_cast %arg2 to offset: [%off], sizes: [16384], strides: [1] : memref<?xf32, #hivm.address_space<gm>> to memref<16384xf32, strided<[1], offset: ?>, #hivm.address_space<gm>>
    hivm.hir.store ins(%ub1 : memref<16384xf32, #hivm.address_space<ub>>) outs(%dst : memref<16384xf32, strided<[1], offset: ?>, #hivm.address_space<gm>>)
    hivm.hir.pipe_barrier[<PIPE_ALL>]
  }
  return
}
