// Written for perfbound's tests; NOT compiler output. An AIV kernel whose loop bound and row
// length are both loaded from GM (issue 23, review item 4): a trips fact makes the loop's count
// exact, but the row length stays an upper bound, so the per-block bytes under the fact are an
// estimate and must say so.
//   line 20: trip count = counts[0]; line 24: row length = min(64, counts[1]);
//   line 26: the loop; line 30: the row load, at most 64 f32 = 256 B per execution.
// With trips."26" = {min = 4, max = 4} and counts[1] = 16: 4 x 16 x 4 B = 256 B per block
// (the estimate from the upper bound is 4 x 256 = 1024 B).
// Launch: grid [1]; grid arguments %arg4..%arg6.
// -----// IR Dump After GraphSyncSolver (hivm-graph-sync-solver) //----- //
func.func @given_estimate(%arg0: i64 {hacc.arg_type = #hacc.arg_type<ffts_base_address>}, %arg1: memref<?xi8, #hivm.address_space<gm>> {hacc.arg_type = #hacc.arg_type<sync_block_lock>}, %arg2: memref<?xi32, #hivm.address_space<gm>> {tt.divisibility = 16 : i32, tt.tensor_kind = 0 : i32}, %arg3: memref<?xf32, #hivm.address_space<gm>> {tt.divisibility = 16 : i32, tt.tensor_kind = 0 : i32}, %arg4: i32, %arg5: i32, %arg6: i32) attributes {SyncBlockLockArgIdx = 0 : i64, hacc.entry, hacc.function_kind = #hacc.function_kind<DEVICE>, hivm.func_core_type = #hivm.func_core_type<AIV>, mix_mode = "aiv", parallel_mode = "simd"} {
  %c0_i64 = arith.constant 0 : i64
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  hivm.hir.set_mask_norm
  %0 = arith.muli %arg4, %arg5 : i32
  %1 = arith.muli %0, %arg6 : i32
  annotation.mark %1 {logical_block_num} : i32
  %rc = memref.reinterpret_cast %arg2 to offset: [0], sizes: [2], strides: [1] : memref<?xi32, #hivm.address_space<gm>> to memref<2xi32, strided<[1]>, #hivm.address_space<gm>>
  %2 = memref.load %rc[%c0] : memref<2xi32, strided<[1]>, #hivm.address_space<gm>>
  %3 = memref.load %rc[%c1] : memref<2xi32, strided<[1]>, #hivm.address_space<gm>>
  %4 = arith.index_cast %2 : i32 to index
  %5 = arith.index_cast %3 : i32 to index
  %6 = affine.min affine_map<()[s0] -> (64, s0)>()[%5]
  %ub = hivm.hir.pointer_cast(%c0_i64) : memref<64xf32, #hivm.address_space<ub>>
  scf.for %arg7 = %c0 to %4 step %c1 {
    %7 = affine.apply affine_map<()[s0] -> (s0 * 64)>()[%arg7]
    %src = memref.reinterpret_cast %arg3 to offset: [%7], sizes: [%6], strides: [1] : memref<?xf32, #hivm.address_space<gm>> to memref<?xf32, strided<[1], offset: ?>, #hivm.address_space<gm>>
    %dst = memref.subview %ub[0] [%6] [1] : memref<64xf32, #hivm.address_space<ub>> to memref<?xf32, strided<[1]>, #hivm.address_space<ub>>
    hivm.hir.load ins(%src : memref<?xf32, strided<[1], offset: ?>, #hivm.address_space<gm>>) outs(%dst : memref<?xf32, strided<[1]>, #hivm.address_space<ub>>)
  }
  return
}
