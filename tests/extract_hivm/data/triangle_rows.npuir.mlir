// Written for perfbound's tests; NOT compiler output. An AIV kernel that loads the upper
// triangle of a 32768 x 32768 f16 matrix row by row (issue 23, review item 3): iteration i
// loads gm[i, i:32768], 32768 - i elements. The loop's 32768 iterations are past the
// enumeration budget (16384), so no single execution stands for the others.
//   line 20: the loop; line 24: the row load.
// Truth per block: sum over i of (32768 - i) x 2 B = 32768 x 32769 B = 1,073,774,592 B.
// The fewest bytes any one execution moves: the last row, 1 element = 2 B.
// Launch: grid [1]; grid arguments %arg3..%arg5.
// -----// IR Dump After GraphSyncSolver (hivm-graph-sync-solver) //----- //
func.func @triangle_rows(%arg0: i64 {hacc.arg_type = #hacc.arg_type<ffts_base_address>}, %arg1: memref<?xi8, #hivm.address_space<gm>> {hacc.arg_type = #hacc.arg_type<sync_block_lock>}, %arg2: memref<?xf16, #hivm.address_space<gm>> {tt.divisibility = 16 : i32, tt.tensor_kind = 0 : i32}, %arg3: i32, %arg4: i32, %arg5: i32) attributes {SyncBlockLockArgIdx = 0 : i64, hacc.entry, hacc.function_kind = #hacc.function_kind<DEVICE>, hivm.func_core_type = #hivm.func_core_type<AIV>, mix_mode = "aiv", parallel_mode = "simd"} {
  %c0_i64 = arith.constant 0 : i64
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32768 = arith.constant 32768 : index
  %0 = arith.muli %arg3, %arg4 : i32
  %1 = arith.muli %0, %arg5 : i32
  annotation.mark %1 {logical_block_num} : i32
  %g = memref.reinterpret_cast %arg2 to offset: [0], sizes: [32768, 32768], strides: [32768, 1] : memref<?xf16, #hivm.address_space<gm>> to memref<32768x32768xf16, strided<[32768, 1]>, #hivm.address_space<gm>>
  %ub = hivm.hir.pointer_cast(%c0_i64) : memref<1x32768xf16, #hivm.address_space<ub>>
  scf.for %arg6 = %c0 to %c32768 step %c1 {
    %2 = affine.apply affine_map<()[s0] -> (32768 - s0)>()[%arg6]
    %row = memref.subview %g[%arg6, %arg6] [1, %2] [1, 1] : memref<32768x32768xf16, strided<[32768, 1]>, #hivm.address_space<gm>> to memref<1x?xf16, strided<[32768, 1], offset: ?>, #hivm.address_space<gm>>
    %dst = memref.subview %ub[0, 0] [1, %2] [1, 1] : memref<1x32768xf16, #hivm.address_space<ub>> to memref<1x?xf16, strided<[32768, 1]>, #hivm.address_space<ub>>
    hivm.hir.load ins(%row : memref<1x?xf16, strided<[32768, 1], offset: ?>, #hivm.address_space<gm>>) outs(%dst : memref<1x?xf16, strided<[32768, 1]>, #hivm.address_space<ub>>)
  }
  return
}
