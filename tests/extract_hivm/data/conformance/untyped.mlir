// Functions without hivm.func_core_type: one whose ops need both cores, one
// of vector ops only, one whose ops could run on either core, and a MIX
// function none of whose ops needs a particular core.
func.func @both(%a: memref<16x16xf16, #hivm.address_space<cbuf>>, %b: memref<16x16xf16, #hivm.address_space<cbuf>>, %c: memref<16x16xf32, #hivm.address_space<cc>>, %x: memref<1024xf32, #hivm.address_space<ub>>) {
  %true = arith.constant true
  %c16 = arith.constant 16 : index
  hivm.hir.mmadL1 ins(%a, %b, %true, %c16, %c16, %c16 : memref<16x16xf16, #hivm.address_space<cbuf>>, memref<16x16xf16, #hivm.address_space<cbuf>>, i1, index, index, index) outs(%c : memref<16x16xf32, #hivm.address_space<cc>>)
  hivm.hir.vexp ins(%x : memref<1024xf32, #hivm.address_space<ub>>) outs(%x : memref<1024xf32, #hivm.address_space<ub>>)
  return
}
func.func @vector_only(%x: memref<1024xf32, #hivm.address_space<ub>>) {
  hivm.hir.vexp ins(%x : memref<1024xf32, #hivm.address_space<ub>>) outs(%x : memref<1024xf32, #hivm.address_space<ub>>)
  return
}
func.func @either(%src: tensor<4096xf32>, %dst: tensor<4096xf32>) -> tensor<4096xf32> {
  %0 = hivm.hir.load ins(%src : tensor<4096xf32>) outs(%dst : tensor<4096xf32>) -> tensor<4096xf32>
  return %0 : tensor<4096xf32>
}
func.func @mix_scalar(%n: i32) attributes {hivm.func_core_type = #hivm.func_core_type<MIX>} {
  %0 = arith.addi %n, %n : i32
  return
}
