// Hand-written for perfbound's bundled example; NOT compiler output.
// varlen_rows: a varlen (cu_seqlens-style) AIV kernel in the printed form of the real dumps. Block b
// squares rows offsets[b] .. offsets[b+1]-1 of x into y, 64 f32 per row (one GM->UB load, one vmul,
// one UB->GM store per row). The loop bounds are loaded from GM (the offsets tensor), so the IR alone
// gives no trip count: give the offsets (launch data) or a trip fact (launch trips).
//   lines 22-23: the loads of offsets[b] and offsets[b+1]; line 27: the loop with the loaded bounds;
//   line 30: the row load (256 B); line 33: the vmul; line 37: the row store (256 B).
// Triton arguments: offsets_ptr = 0 (i32, grid + 1 elements), x_ptr = 1, y_ptr = 2 (f32).
// Launch: grid [B]; grid arguments %arg5..%arg7. examples/kernels/varlen_rows/offsets.npy: B = 4.
// -----// IR Dump After GraphSyncSolver (hivm-graph-sync-solver) //----- //
func.func @varlen_rows(%arg0: i64 {hacc.arg_type = #hacc.arg_type<ffts_base_address>}, %arg1: memref<?xi8, #hivm.address_space<gm>> {hacc.arg_type = #hacc.arg_type<sync_block_lock>}, %arg2: memref<?xi32, #hivm.address_space<gm>> {tt.divisibility = 16 : i32, tt.tensor_kind = 0 : i32}, %arg3: memref<?xf32, #hivm.address_space<gm>> {tt.divisibility = 16 : i32, tt.tensor_kind = 0 : i32}, %arg4: memref<?xf32, #hivm.address_space<gm>> {tt.divisibility = 16 : i32, tt.tensor_kind = 1 : i32}, %arg5: i32, %arg6: i32, %arg7: i32) attributes {hacc.entry, hacc.function_kind = #hacc.function_kind<DEVICE>, hivm.func_core_type = #hivm.func_core_type<AIV>, mix_mode = "aiv", parallel_mode = "simd"} {
  %c0_i64 = arith.constant 0 : i64
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  hivm.hir.set_mask_norm
  %0 = arith.muli %arg5, %arg6 : i32
  %1 = arith.muli %0, %arg7 : i32
  annotation.mark %1 {logical_block_num} : i32
  %2 = hivm.hir.get_block_idx -> i64
  %3 = arith.index_cast %2 : i64 to index
  %reinterpret_cast = memref.reinterpret_cast %arg2 to offset: [%3], sizes: [2], strides: [1] : memref<?xi32, #hivm.address_space<gm>> to memref<2xi32, strided<[1], offset: ?>, #hivm.address_space<gm>>
  %4 = memref.load %reinterpret_cast[%c0] : memref<2xi32, strided<[1], offset: ?>, #hivm.address_space<gm>>
  %5 = memref.load %reinterpret_cast[%c1] : memref<2xi32, strided<[1], offset: ?>, #hivm.address_space<gm>>
  %6 = arith.index_cast %4 : i32 to index
  %7 = arith.index_cast %5 : i32 to index
  %8 = hivm.hir.pointer_cast(%c0_i64) : memref<64xf32, #hivm.address_space<ub>>
  scf.for %arg8 = %6 to %7 step %c1 {
    %9 = affine.apply affine_map<()[s0] -> (s0 * 64)>()[%arg8]
    %reinterpret_cast_0 = memref.reinterpret_cast %arg3 to offset: [%9], sizes: [64], strides: [1] : memref<?xf32, #hivm.address_space<gm>> to memref<64xf32, strided<[1], offset: ?>, #hivm.address_space<gm>>
    hivm.hir.load ins(%reinterpret_cast_0 : memref<64xf32, strided<[1], offset: ?>, #hivm.address_space<gm>>) outs(%8 : memref<64xf32, #hivm.address_space<ub>>)
    hivm.hir.set_flag[<PIPE_MTE2>, <PIPE_V>, <EVENT_ID0>]
    hivm.hir.wait_flag[<PIPE_MTE2>, <PIPE_V>, <EVENT_ID0>]
    hivm.hir.vmul ins(%8, %8 : memref<64xf32, #hivm.address_space<ub>>, memref<64xf32, #hivm.address_space<ub>>) outs(%8 : memref<64xf32, #hivm.address_space<ub>>)
    hivm.hir.set_flag[<PIPE_V>, <PIPE_MTE3>, <EVENT_ID0>]
    hivm.hir.wait_flag[<PIPE_V>, <PIPE_MTE3>, <EVENT_ID0>]
    %reinterpret_cast_1 = memref.reinterpret_cast %arg4 to offset: [%9], sizes: [64], strides: [1] : memref<?xf32, #hivm.address_space<gm>> to memref<64xf32, strided<[1], offset: ?>, #hivm.address_space<gm>>
    hivm.hir.store ins(%8 : memref<64xf32, #hivm.address_space<ub>>) outs(%reinterpret_cast_1 : memref<64xf32, strided<[1], offset: ?>, #hivm.address_space<gm>>)
    hivm.hir.set_flag[<PIPE_MTE3>, <PIPE_MTE2>, <EVENT_ID0>]
    hivm.hir.wait_flag[<PIPE_MTE3>, <PIPE_MTE2>, <EVENT_ID0>]
  }
  return
}
