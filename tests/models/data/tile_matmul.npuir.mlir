// Written for perfbound's tests; NOT compiler output. The HIVM of a cube-only
// (AIC) matmul with 128 x 128 output tiles, K step 64, fp16, in the printed form of
// the real dumps: the shape of tests/extract_ttir/kernels/blockptr_matmul.ttir
// (issue 23, review items 1 and 5). Block b computes the tile (b floordiv 32,
// b mod 32) of C = A x B for M = N = K = 4096 (row strides 4096 are written in):
//   per K step (loop at line 29): nd2nz of a 128 x 64 A tile (16 KiB, line 34) and a
//   64 x 128 B tile (16 KiB, line 39) GM -> L1, one 128 x 64 x 128 mmadL1 (line 43);
//   then one fixpipe of the 128 x 128 tile L0C -> GM as fp16 (32 KiB, line 49).
// Each A row panel is read by the 32 blocks of its row, each B column panel by the
// 32 blocks of its column: 2 MiB of DMA per block, 2 GiB over the grid, for
// 64 MiB of unique A and B.
// Triton arguments: a 0 (%arg2), b 1 (%arg3), c 2 (%arg4), M 3, N 4, K 5 (%arg7),
// strides 6-8; grid %arg11..%arg13. Launch: grid [32, 32], "5" = 4096.
// -----// IR Dump After GraphSyncSolver (hivm-graph-sync-solver) //----- //
func.func @tile_matmul(%arg0: i64 {hacc.arg_type = #hacc.arg_type<ffts_base_address>}, %arg1: memref<?xi8, #hivm.address_space<gm>> {hacc.arg_type = #hacc.arg_type<sync_block_lock>}, %arg2: memref<?xf16, #hivm.address_space<gm>> {tt.divisibility = 16 : i32, tt.tensor_kind = 0 : i32}, %arg3: memref<?xf16, #hivm.address_space<gm>> {tt.divisibility = 16 : i32, tt.tensor_kind = 0 : i32}, %arg4: memref<?xf16, #hivm.address_space<gm>> {tt.divisibility = 16 : i32, tt.tensor_kind = 1 : i32}, %arg5: i32, %arg6: i32, %arg7: i32, %arg8: i32, %arg9: i32, %arg10: i32, %arg11: i32, %arg12: i32, %arg13: i32) attributes {SyncBlockLockArgIdx = 0 : i64, hacc.entry, hacc.function_kind = #hacc.function_kind<DEVICE>, hivm.func_core_type = #hivm.func_core_type<AIC>, mix_mode = "aic", parallel_mode = "simd"} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c0_i64 = arith.constant 0 : i64
  %c16384_i64 = arith.constant 16384 : i64
  %0 = arith.muli %arg11, %arg12 : i32
  %1 = arith.muli %0, %arg13 : i32
  annotation.mark %1 {logical_block_num} : i32
  %2 = hivm.hir.get_block_idx -> i64
  %3 = arith.index_cast %2 : i64 to index
  %4 = affine.apply affine_map<()[s0] -> (s0 floordiv 32)>()[%3]
  %5 = affine.apply affine_map<()[s0] -> (s0 mod 32)>()[%3]
  %6 = arith.index_cast %arg7 : i32 to index
  scf.for %arg14 = %c0 to %6 step %c64 {
    %7 = affine.apply affine_map<()[s0, s1] -> (s0 * 524288 + s1)>()[%4, %arg14]
    %reinterpret_cast = memref.reinterpret_cast %arg2 to offset: [%7], sizes: [128, 64], strides: [4096, 1] : memref<?xf16, #hivm.address_space<gm>> to memref<128x64xf16, strided<[4096, 1], offset: ?>, #hivm.address_space<gm>>
    %8 = hivm.hir.pointer_cast(%c0_i64) : memref<4x8x16x16xf16, #hivm.address_space<cbuf>>
    %cast = memref.cast %8 : memref<4x8x16x16xf16, #hivm.address_space<cbuf>> to memref<?x?x?x?xf16, #hivm.address_space<cbuf>>
    hivm.hir.nd2nz {dst_continuous} ins(%reinterpret_cast : memref<128x64xf16, strided<[4096, 1], offset: ?>, #hivm.address_space<gm>>) outs(%cast : memref<?x?x?x?xf16, #hivm.address_space<cbuf>>) init_out_buffer = false
    %9 = affine.apply affine_map<()[s0, s1] -> (s0 * 4096 + s1 * 128)>()[%arg14, %5]
    %reinterpret_cast_0 = memref.reinterpret_cast %arg3 to offset: [%9], sizes: [64, 128], strides: [4096, 1] : memref<?xf16, #hivm.address_space<gm>> to memref<64x128xf16, strided<[4096, 1], offset: ?>, #hivm.address_space<gm>>
    %10 = hivm.hir.pointer_cast(%c16384_i64) : memref<8x4x16x16xf16, #hivm.address_space<cbuf>>
    %cast_1 = memref.cast %10 : memref<8x4x16x16xf16, #hivm.address_space<cbuf>> to memref<?x?x?x?xf16, #hivm.address_space<cbuf>>
    hivm.hir.nd2nz {dst_continuous} ins(%reinterpret_cast_0 : memref<64x128xf16, strided<[4096, 1], offset: ?>, #hivm.address_space<gm>>) outs(%cast_1 : memref<?x?x?x?xf16, #hivm.address_space<cbuf>>) init_out_buffer = false
    %11 = arith.cmpi eq, %arg14, %c0 : index
    %12 = hivm.hir.pointer_cast(%c0_i64) : memref<8x8x16x16xf32, #hivm.address_space<cc>>
    %cast_2 = memref.cast %12 : memref<8x8x16x16xf32, #hivm.address_space<cc>> to memref<?x?x?x?xf32, #hivm.address_space<cc>>
    hivm.hir.mmadL1 ins(%cast, %cast_1, %11, %c128, %c64, %c128 : memref<?x?x?x?xf16, #hivm.address_space<cbuf>>, memref<?x?x?x?xf16, #hivm.address_space<cbuf>>, i1, index, index, index) outs(%cast_2 : memref<?x?x?x?xf32, #hivm.address_space<cc>>)
  }
  %13 = affine.apply affine_map<()[s0, s1] -> (s0 * 524288 + s1 * 128)>()[%4, %5]
  %reinterpret_cast_3 = memref.reinterpret_cast %arg4 to offset: [%13], sizes: [128, 128], strides: [4096, 1] : memref<?xf16, #hivm.address_space<gm>> to memref<128x128xf16, strided<[4096, 1], offset: ?>, #hivm.address_space<gm>>
  %14 = hivm.hir.pointer_cast(%c0_i64) : memref<8x8x16x16xf32, #hivm.address_space<cc>>
  %cast_4 = memref.cast %14 : memref<8x8x16x16xf32, #hivm.address_space<cc>> to memref<?x?x?x?xf32, #hivm.address_space<cc>>
  hivm.hir.fixpipe {dma_mode = #hivm.dma_mode<nz2nd>, pre_quant = #hivm.fixpipe_pre_quant_mode<F322F16>} ins(%cast_4 : memref<?x?x?x?xf32, #hivm.address_space<cc>>) outs(%reinterpret_cast_3 : memref<128x128xf16, strided<[4096, 1], offset: ?>, #hivm.address_space<gm>>)
  return
}
