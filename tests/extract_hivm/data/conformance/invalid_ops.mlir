// Ops their definitions refuse (HIVMDMAOps.td, HIVMOps.td), one per input,
// and one valid load that pads (its shapes may differ).
func.func @elem(%src: memref<16xf32, #hivm.address_space<gm>>, %dst: memref<16xf16, #hivm.address_space<ub>>) {
  hivm.hir.load ins(%src : memref<16xf32, #hivm.address_space<gm>>) outs(%dst : memref<16xf16, #hivm.address_space<ub>>)
  return
}
// -----
func.func @rank(%src: tensor<16x16x2xf16>, %dst: tensor<16x16xf16>) {
  %0 = hivm.hir.load ins(%src : tensor<16x16x2xf16>) outs(%dst : tensor<16x16xf16>) -> tensor<16x16xf16>
  return
}
// -----
func.func @shape(%src: tensor<16x16xf16>, %dst: tensor<16x32xf16>) {
  %0 = hivm.hir.load ins(%src : tensor<16x16xf16>) outs(%dst : tensor<16x32xf16>) -> tensor<16x32xf16>
  return
}
// -----
func.func @kinds(%src: tensor<16xf16>, %dst: memref<16xf16, #hivm.address_space<ub>>) {
  hivm.hir.load ins(%src : tensor<16xf16>) outs(%dst : memref<16xf16, #hivm.address_space<ub>>)
  return
}
// -----
func.func @gm_gm(%src: memref<16xf16, #hivm.address_space<gm>>, %dst: memref<16xf16, #hivm.address_space<gm>>) {
  hivm.hir.copy ins(%src : memref<16xf16, #hivm.address_space<gm>>) outs(%dst : memref<16xf16, #hivm.address_space<gm>>)
  return
}
// -----
func.func @store_ub(%src: memref<16xf16, #hivm.address_space<gm>>, %dst: memref<16xf16, #hivm.address_space<ub>>) {
  hivm.hir.store ins(%src : memref<16xf16, #hivm.address_space<gm>>) outs(%dst : memref<16xf16, #hivm.address_space<ub>>)
  return
}
// -----
func.func @no_address() {
  %0 = hivm.hir.pointer_cast() [] : memref<16xf16, #hivm.address_space<ub>>
  return
}
// -----
func.func @lock() {
  %0 = hivm.hir.create_sync_block_lock : memref<?xi64>
  return
}
// -----
func.func @padded(%src: memref<16xf16, #hivm.address_space<gm>>, %dst: memref<32xf16, #hivm.address_space<ub>>) {
  %cst = arith.constant 0.000000e+00 : f16
  %c8 = arith.constant 8 : index
  hivm.hir.load ins(%src : memref<16xf16, #hivm.address_space<gm>>) outs(%dst : memref<32xf16, #hivm.address_space<ub>>) pad_mode = <PadValue> pad_value = %cst : f16 left_padding_num = %c8 : index
  return
}
