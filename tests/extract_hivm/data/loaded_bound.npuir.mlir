// Written for perfbound's tests; NOT compiler output. An AIV kernel whose loop bound is loaded
// from GM, as in chunk_kda's third gather nest: each block reads its row count from counts[block]
// (Triton argument 0, i32) and loads that many 64-element f32 rows of x (Triton argument 1).
//   line 19: the load of counts[block]; line 22: the loop with the loaded bound;
//   line 25: the row load (64 f32 = 256 B); line 26: a vmul (1 repeat, 64 FLOP).
// Triton argument 2 (%arg4) is a scalar. Launch: grid [4]; grid arguments %arg5..%arg7.
// -----// IR Dump After GraphSyncSolver (hivm-graph-sync-solver) //----- //
func.func @loaded_bound(%arg0: i64 {hacc.arg_type = #hacc.arg_type<ffts_base_address>}, %arg1: memref<?xi8, #hivm.address_space<gm>> {hacc.arg_type = #hacc.arg_type<sync_block_lock>}, %arg2: memref<?xi32, #hivm.address_space<gm>> {tt.divisibility = 16 : i32, tt.tensor_kind = 0 : i32}, %arg3: memref<?xf32, #hivm.address_space<gm>> {tt.divisibility = 16 : i32, tt.tensor_kind = 0 : i32}, %arg4: i32, %arg5: i32, %arg6: i32, %arg7: i32) attributes {SyncBlockLockArgIdx = 0 : i64, hacc.entry, hacc.function_kind = #hacc.function_kind<DEVICE>, hivm.func_core_type = #hivm.func_core_type<AIV>, mix_mode = "aiv", parallel_mode = "simd"} {
  %c0_i64 = arith.constant 0 : i64
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  hivm.hir.set_mask_norm
  %0 = arith.muli %arg5, %arg6 : i32
  %1 = arith.muli %0, %arg7 : i32
  annotation.mark %1 {logical_block_num} : i32
  %2 = hivm.hir.get_block_idx -> i64
  %3 = arith.index_cast %2 : i64 to index
  %reinterpret_cast = memref.reinterpret_cast %arg2 to offset: [%3], sizes: [1], strides: [1] : memref<?xi32, #hivm.address_space<gm>> to memref<1xi32, strided<[1], offset: ?>, #hivm.address_space<gm>>
  %4 = memref.load %reinterpret_cast[%c0] : memref<1xi32, strided<[1], offset: ?>, #hivm.address_space<gm>>
  %5 = arith.index_cast %4 : i32 to index
  %6 = hivm.hir.pointer_cast(%c0_i64) : memref<64xf32, #hivm.address_space<ub>>
  scf.for %arg8 = %c0 to %5 step %c1 {
    %7 = affine.apply affine_map<()[s0] -> (s0 * 64)>()[%arg8]
    %reinterpret_cast_0 = memref.reinterpret_cast %arg3 to offset: [%7], sizes: [64], strides: [1] : memref<?xf32, #hivm.address_space<gm>> to memref<64xf32, strided<[1], offset: ?>, #hivm.address_space<gm>>
    hivm.hir.load ins(%reinterpret_cast_0 : memref<64xf32, strided<[1], offset: ?>, #hivm.address_space<gm>>) outs(%6 : memref<64xf32, #hivm.address_space<ub>>)
    hivm.hir.vmul ins(%6, %6 : memref<64xf32, #hivm.address_space<ub>>, memref<64xf32, #hivm.address_space<ub>>) outs(%6 : memref<64xf32, #hivm.address_space<ub>>)
  }
  return
}
