// Written for perfbound's tests; NOT compiler output. The HIVM of row_scale.ttir.mlir
// (RMSNorm's memory pattern, issue 23 review item 1), in the printed form of the real
// dumps: one AIV block per row; per block one 8 KiB load of its x row (line 21), one
// 8 KiB load of the whole weight w (line 24: the same GM bytes in every block), a vmul,
// one 8 KiB store of its out row (line 32).
// Triton arguments: x_ptr 0 (%arg2), w_ptr 1 (%arg3), out_ptr 2 (%arg4); grid %arg5..%arg7.
// -----// IR Dump After GraphSyncSolver (hivm-graph-sync-solver) //----- //
func.func @row_scale(%arg0: i64 {hacc.arg_type = #hacc.arg_type<ffts_base_address>}, %arg1: memref<?xi8, #hivm.address_space<gm>> {hacc.arg_type = #hacc.arg_type<sync_block_lock>}, %arg2: memref<?xf16, #hivm.address_space<gm>> {tt.divisibility = 16 : i32, tt.tensor_kind = 0 : i32}, %arg3: memref<?xf16, #hivm.address_space<gm>> {tt.divisibility = 16 : i32, tt.tensor_kind = 0 : i32}, %arg4: memref<?xf16, #hivm.address_space<gm>> {tt.divisibility = 16 : i32, tt.tensor_kind = 1 : i32}, %arg5: i32, %arg6: i32, %arg7: i32) attributes {SyncBlockLockArgIdx = 0 : i64, hacc.entry, hacc.function_kind = #hacc.function_kind<DEVICE>, hivm.func_core_type = #hivm.func_core_type<AIV>, mix_mode = "aiv", parallel_mode = "simd"} {
  %c0_i64 = arith.constant 0 : i64
  %c8192_i64 = arith.constant 8192 : i64
  %c16384_i64 = arith.constant 16384 : i64
  hivm.hir.set_mask_norm
  %0 = arith.muli %arg5, %arg6 : i32
  %1 = arith.muli %0, %arg7 : i32
  annotation.mark %1 {logical_block_num} : i32
  %2 = hivm.hir.get_block_idx -> i64
  %3 = arith.index_cast %2 : i64 to index
  %4 = affine.apply affine_map<()[s0] -> (s0 * 4096)>()[%3]
  %reinterpret_cast = memref.reinterpret_cast %arg2 to offset: [%4], sizes: [4096], strides: [1] : memref<?xf16, #hivm.address_space<gm>> to memref<4096xf16, strided<[1], offset: ?>, #hivm.address_space<gm>>
  %5 = hivm.hir.pointer_cast(%c0_i64) : memref<4096xf16, #hivm.address_space<ub>>
  hivm.hir.load ins(%reinterpret_cast : memref<4096xf16, strided<[1], offset: ?>, #hivm.address_space<gm>>) outs(%5 : memref<4096xf16, #hivm.address_space<ub>>)
  %reinterpret_cast_0 = memref.reinterpret_cast %arg3 to offset: [0], sizes: [4096], strides: [1] : memref<?xf16, #hivm.address_space<gm>> to memref<4096xf16, strided<[1]>, #hivm.address_space<gm>>
  %6 = hivm.hir.pointer_cast(%c8192_i64) : memref<4096xf16, #hivm.address_space<ub>>
  hivm.hir.load ins(%reinterpret_cast_0 : memref<4096xf16, strided<[1]>, #hivm.address_space<gm>>) outs(%6 : memref<4096xf16, #hivm.address_space<ub>>)
  hivm.hir.set_flag[<PIPE_MTE2>, <PIPE_V>, <EVENT_ID0>]
  hivm.hir.wait_flag[<PIPE_MTE2>, <PIPE_V>, <EVENT_ID0>]
  %7 = hivm.hir.pointer_cast(%c16384_i64) : memref<4096xf16, #hivm.address_space<ub>>
  hivm.hir.vmul ins(%5, %6 : memref<4096xf16, #hivm.address_space<ub>>, memref<4096xf16, #hivm.address_space<ub>>) outs(%7 : memref<4096xf16, #hivm.address_space<ub>>)
  hivm.hir.set_flag[<PIPE_V>, <PIPE_MTE3>, <EVENT_ID0>]
  %reinterpret_cast_1 = memref.reinterpret_cast %arg4 to offset: [%4], sizes: [4096], strides: [1] : memref<?xf16, #hivm.address_space<gm>> to memref<4096xf16, strided<[1], offset: ?>, #hivm.address_space<gm>>
  hivm.hir.wait_flag[<PIPE_V>, <PIPE_MTE3>, <EVENT_ID0>]
  hivm.hir.store ins(%7 : memref<4096xf16, #hivm.address_space<ub>>) outs(%reinterpret_cast_1 : memref<4096xf16, strided<[1], offset: ?>, #hivm.address_space<gm>>)
  return
}
