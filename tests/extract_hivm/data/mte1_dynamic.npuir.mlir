// Written for perfbound's tests; NOT compiler output. An AIC kernel with two mmadL1 whose
// real_m is dynamic (issue 23, review item 2: MTE1 bytes must be a minimum).
//   line 24: a loop of 2 iterations; line 25: real_m = min(128, 16 + 112 i): 16, then 128;
//   line 26: mmadL1 (real_m, K = 64, N = 128, f16): MTE1 bytes per execution
//            (pad16(m) x 64 + 64 x 128) x 2 B = 18432 B (m = 16), 32768 B (m = 128);
//   line 31: real_m = min(128, counts[0]) (loaded, Triton argument 0);
//   line 32: mmadL1 with that real_m: at least the K x N operand, 64 x 128 x 2 = 16384 B, when m > 0.
// Launch: grid [1]; grid arguments %arg3..%arg5.
// -----// IR Dump After GraphSyncSolver (hivm-graph-sync-solver) //----- //
func.func @mte1_dynamic(%arg0: i64 {hacc.arg_type = #hacc.arg_type<ffts_base_address>}, %arg1: memref<?xi8, #hivm.address_space<gm>> {hacc.arg_type = #hacc.arg_type<sync_block_lock>}, %arg2: memref<?xi32, #hivm.address_space<gm>> {tt.divisibility = 16 : i32, tt.tensor_kind = 0 : i32}, %arg3: i32, %arg4: i32, %arg5: i32) attributes {SyncBlockLockArgIdx = 0 : i64, hacc.entry, hacc.function_kind = #hacc.function_kind<DEVICE>, hivm.func_core_type = #hivm.func_core_type<AIC>, mix_mode = "aic", parallel_mode = "simd"} {
  %c0_i64 = arith.constant 0 : i64
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %true = arith.constant true
  %0 = arith.muli %arg3, %arg4 : i32
  %1 = arith.muli %0, %arg5 : i32
  annotation.mark %1 {logical_block_num} : i32
  %a = hivm.hir.pointer_cast(%c0_i64) : memref<128x64xf16, #hivm.address_space<cbuf>>
  %b = hivm.hir.pointer_cast(%c0_i64) : memref<64x128xf16, #hivm.address_space<cbuf>>
  %c = hivm.hir.pointer_cast(%c0_i64) : memref<128x128xf32, #hivm.address_space<cc>>
  scf.for %arg6 = %c0 to %c2 step %c1 {
    %2 = affine.min affine_map<()[s0] -> (128, s0 * 112 + 16)>()[%arg6]
    hivm.hir.mmadL1 ins(%a, %b, %true, %2, %c64, %c128 : memref<128x64xf16, #hivm.address_space<cbuf>>, memref<64x128xf16, #hivm.address_space<cbuf>>, i1, index, index, index) outs(%c : memref<128x128xf32, #hivm.address_space<cc>>)
  }
  %rc = memref.reinterpret_cast %arg2 to offset: [0], sizes: [1], strides: [1] : memref<?xi32, #hivm.address_space<gm>> to memref<1xi32, strided<[1]>, #hivm.address_space<gm>>
  %3 = memref.load %rc[%c0] : memref<1xi32, strided<[1]>, #hivm.address_space<gm>>
  %4 = arith.index_cast %3 : i32 to index
  %5 = affine.min affine_map<()[s0] -> (128, s0)>()[%4]
  hivm.hir.mmadL1 ins(%a, %b, %true, %5, %c64, %c128 : memref<128x64xf16, #hivm.address_space<cbuf>>, memref<64x128xf16, #hivm.address_space<cbuf>>, i1, index, index, index) outs(%c : memref<128x128xf32, #hivm.address_space<cc>>)
  return
}
