llvm.func @__assertfail(!llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64) attributes {sym_visibility = "private"}
memref.global "private" constant @__constant_4xi32 : memref<4xi32> = dense<[1, 2, 3, 4]>
llvm.mlir.global internal constant @str0("hello\00") {addr_space = 0 : i32}
func.func @forms(%arg0: memref<1024xf32, #hivm.address_space<gm>>, %arg1: tensor<16x8xf32>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %c0_i64 = arith.constant 0 : i64
  hivm.hir.create_sync_block_lock : memref<1xi64>
  %0 = hivm.hir.pointer_cast(%c0_i64) : memref<1024xf32, #hivm.address_space<ub>>
  scope.scope : () -> () {
    hivm.hir.load ins(%arg0 : memref<1024xf32, #hivm.address_space<gm>>) outs(%0 : memref<1024xf32, #hivm.address_space<ub>>)
    scope.return
  }
  %init = tensor.empty() : tensor<16xf32>
  %r = linalg.reduce ins(%arg1 : tensor<16x8xf32>) outs(%init : tensor<16xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return
}
func.func @generic_outs(%arg0: tensor<64xf32>) -> tensor<64xf32> attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  %cst = arith.constant 1.000000e+00 : f32
  %0 = tensor.empty() : tensor<64xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%0 : tensor<64xf32>) {
  ^bb0(%out: f32):
    linalg.yield %cst : f32
  } -> tensor<64xf32>
  return %1 : tensor<64xf32>
}
