// Written for perfbound's tests; NOT compiler output (issue 23, review item 7: `sum` facts).
// An AIV kernel whose inner loop (line 27) has a loaded trip count and is entered once per
// iteration of an outer loop (line 24) that runs twice (0 + 2: the same in every block).
// Iteration o of the outer loop loads rows of 64 * (o + 1) f32 (256 B for o = 0, 512 B for
// o = 1) at line 32.
//   line 21: the load of counts[block] (the inner loop's bound);
//   line 24: the outer loop; line 27: the inner loop; line 32: the row load.
// Launch: grid [2]; the fact trips."27" = { sum = 6, over = "block" } says each block runs the
// inner loop 6 times in all. It holds, for example, when each block runs its 6 iterations in its
// first entry (o = 0, 256 B each) and none in the others: 6 loads, 1,536 B. So per block the
// loads number exactly 6, over the grid 12, and no more than 6 x 256 = 1,536 B is guaranteed.
// -----// IR Dump After GraphSyncSolver (hivm-graph-sync-solver) //----- //
func.func @sum_entries(%arg0: i64 {hacc.arg_type = #hacc.arg_type<ffts_base_address>}, %arg1: memref<?xi8, #hivm.address_space<gm>> {hacc.arg_type = #hacc.arg_type<sync_block_lock>}, %arg2: memref<?xi32, #hivm.address_space<gm>> {tt.divisibility = 16 : i32, tt.tensor_kind = 0 : i32}, %arg3: memref<?xf32, #hivm.address_space<gm>> {tt.divisibility = 16 : i32, tt.tensor_kind = 0 : i32}, %arg4: i32, %arg5: i32, %arg6: i32) attributes {SyncBlockLockArgIdx = 0 : i64, hacc.entry, hacc.function_kind = #hacc.function_kind<DEVICE>, hivm.func_core_type = #hivm.func_core_type<AIV>, mix_mode = "aiv", parallel_mode = "simd"} {
  %c0_i64 = arith.constant 0 : i64
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %2 = hivm.hir.get_block_idx -> i64
  %3 = arith.index_cast %2 : i64 to index
  %reinterpret_cast = memref.reinterpret_cast %arg2 to offset: [%3], sizes: [1], strides: [1] : memref<?xi32, #hivm.address_space<gm>> to memref<1xi32, strided<[1], offset: ?>, #hivm.address_space<gm>>
  %4 = memref.load %reinterpret_cast[%c0] : memref<1xi32, strided<[1], offset: ?>, #hivm.address_space<gm>>
  %5 = arith.index_cast %4 : i32 to index
  %outer = arith.addi %c0, %c2 : index
  scf.for %o = %c0 to %outer step %c1 {
    %o1 = arith.addi %o, %c1 : index
    %n = affine.apply affine_map<()[s0] -> (s0 * 64)>()[%o1]
    scf.for %i = %c0 to %5 step %c1 {
      %7 = affine.apply affine_map<()[s0] -> (s0 * 128)>()[%i]
      %src = memref.reinterpret_cast %arg3 to offset: [%7], sizes: [%n], strides: [1] : memref<?xf32, #hivm.address_space<gm>> to memref<?xf32, strided<[1], offset: ?>, #hivm.address_space<gm>>
      %ub = hivm.hir.pointer_cast(%c0_i64) : memref<256xf32, #hivm.address_space<ub>>
      %dst = memref.subview %ub[0] [%n] [1] : memref<256xf32, #hivm.address_space<ub>> to memref<?xf32, strided<[1]>, #hivm.address_space<ub>>
      hivm.hir.load ins(%src : memref<?xf32, strided<[1], offset: ?>, #hivm.address_space<gm>>) outs(%dst : memref<?xf32, strided<[1]>, #hivm.address_space<ub>>)
    }
  }
  return
}
