// Ops modelled from their definitions (HIVMMacroOps.td, HIVMDMAOps.td):
// mmadmxL1, the matmul macro, tensor loads and stores, and copies and
// broadcasts on memrefs printed without an address space.
func.func @cube(%a: memref<64x32xf8E5M2, #hivm.address_space<cbuf>>, %b: memref<32x64xf8E5M2, #hivm.address_space<cbuf>>, %sa: memref<64x1xui8, #hivm.address_space<cbuf>>, %sb: memref<64x1xui8, #hivm.address_space<cbuf>>, %c: memref<64x64xf32, #hivm.address_space<cc>>, %ga: tensor<128x256xf16>, %gb: tensor<256x64xf16>, %gc: tensor<128x64xf16>) attributes {hivm.func_core_type = #hivm.func_core_type<AIC>} {
  %false = arith.constant false
  %c64 = arith.constant 64 : index
  %c32 = arith.constant 32 : index
  hivm.hir.mmadmxL1 ins(%a, %b, %sa, %sb, %false, %c64, %c32, %c64 : memref<64x32xf8E5M2, #hivm.address_space<cbuf>>, memref<32x64xf8E5M2, #hivm.address_space<cbuf>>, memref<64x1xui8, #hivm.address_space<cbuf>>, memref<64x1xui8, #hivm.address_space<cbuf>>, i1, index, index, index) outs(%c : memref<64x64xf32, #hivm.address_space<cc>>)
  %0 = hivm.hir.matmul ins(%ga, %gb : tensor<128x256xf16>, tensor<256x64xf16>) outs(%gc : tensor<128x64xf16>) -> tensor<128x64xf16>
  return
}
func.func @vector(%src: tensor<4096xf32>, %dst: tensor<4096xf32>, %g: memref<2048xf16>, %out: memref<2048xf16>) -> tensor<4096xf32> attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %cst = arith.constant 1.000000e+00 : f16
  %0 = hivm.hir.load ins(%src : tensor<4096xf32>) outs(%dst : tensor<4096xf32>) -> tensor<4096xf32>
  %1 = hivm.hir.store ins(%0 : tensor<4096xf32>) outs(%dst : tensor<4096xf32>) -> tensor<4096xf32>
  %buf = memref.alloc() : memref<2048xf16>
  hivm.hir.copy ins(%g : memref<2048xf16>) outs(%buf : memref<2048xf16>)
  hivm.hir.vbrc ins(%cst : f16) outs(%buf : memref<2048xf16>)
  hivm.hir.copy ins(%buf : memref<2048xf16>) outs(%out : memref<2048xf16>)
  return %1 : tensor<4096xf32>
}
