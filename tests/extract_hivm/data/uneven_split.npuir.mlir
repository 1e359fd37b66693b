// Written for perfbound's tests; NOT compiler output. An AIV kernel that splits rows unevenly
// over its blocks, in the printed form of the real dumps (../shared/data/hivm/*.npuir.mlir):
//   loop A (line 26): the first 3 blocks run 5 iterations, the others 4 (select on get_block_idx);
//   loop B (line 34): block 2 runs 3 iterations, every other block 5 (block 0 and the last agree).
// Each iteration loads 64 f32 (256 B, one contiguous run) GM -> UB and adds them (1 repeat, 64 FLOP).
// Launch: grid [8]; Triton argument 0 is x_ptr, the grid arguments are %arg3..%arg5.
// -----// IR Dump After GraphSyncSolver (hivm-graph-sync-solver) //----- //
func.func @uneven_split(%arg0: i64 {hacc.arg_type = #hacc.arg_type<ffts_base_address>}, %arg1: memref<?xi8, #hivm.address_space<gm>> {hacc.arg_type = #hacc.arg_type<sync_block_lock>}, %arg2: memref<?xf32, #hivm.address_space<gm>> {tt.divisibility = 16 : i32, tt.tensor_kind = 0 : i32}, %arg3: i32, %arg4: i32, %arg5: i32) attributes {SyncBlockLockArgIdx = 0 : i64, hacc.entry, hacc.function_kind = #hacc.function_kind<DEVICE>, hivm.func_core_type = #hivm.func_core_type<AIV>, mix_mode = "aiv", parallel_mode = "simd"} {
  %c0_i64 = arith.constant 0 : i64
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c64 = arith.constant 64 : index
  hivm.hir.set_mask_norm
  %0 = arith.muli %arg3, %arg4 : i32
  %1 = arith.muli %0, %arg5 : i32
  annotation.mark %1 {logical_block_num} : i32
  %2 = hivm.hir.get_block_idx -> i64
  %3 = arith.index_cast %2 : i64 to index
  %4 = arith.cmpi slt, %3, %c3 : index
  %5 = arith.select %4, %c5, %c4 : index
  %6 = hivm.hir.pointer_cast(%c0_i64) : memref<64xf32, #hivm.address_space<ub>>
  scf.for %arg6 = %c0 to %5 step %c1 {
    %10 = affine.apply affine_map<()[s0, s1] -> (s0 * 320 + s1 * 64)>()[%3, %arg6]
    %reinterpret_cast = memref.reinterpret_cast %arg2 to offset: [%10], sizes: [64], strides: [1] : memref<?xf32, #hivm.address_space<gm>> to memref<64xf32, strided<[1], offset: ?>, #hivm.address_space<gm>>
    hivm.hir.load ins(%reinterpret_cast : memref<64xf32, strided<[1], offset: ?>, #hivm.address_space<gm>>) outs(%6 : memref<64xf32, #hivm.address_space<ub>>)
    hivm.hir.vadd ins(%6, %6 : memref<64xf32, #hivm.address_space<ub>>, memref<64xf32, #hivm.address_space<ub>>) outs(%6 : memref<64xf32, #hivm.address_space<ub>>)
  }
  %7 = arith.cmpi eq, %3, %c2 : index
  %8 = arith.select %7, %c3, %c5 : index
  scf.for %arg6 = %c0 to %8 step %c1 {
    %10 = affine.apply affine_map<()[s0, s1] -> (s0 * 320 + s1 * 64)>()[%3, %arg6]
    %reinterpret_cast = memref.reinterpret_cast %arg2 to offset: [%10], sizes: [64], strides: [1] : memref<?xf32, #hivm.address_space<gm>> to memref<64xf32, strided<[1], offset: ?>, #hivm.address_space<gm>>
    hivm.hir.load ins(%reinterpret_cast : memref<64xf32, strided<[1], offset: ?>, #hivm.address_space<gm>>) outs(%6 : memref<64xf32, #hivm.address_space<ub>>)
  }
  return
}
