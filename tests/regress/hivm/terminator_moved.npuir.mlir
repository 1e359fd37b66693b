// regress: the function's 'return' moved before the last operation was accepted
func.func @k(%arg0: memref<?xf32, #hivm.address_space<gm>>, %arg1: i32) attributes {hacc.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c0_i64 = arith.constant 0 : i64
  %c7_i32 = arith.constant 7 : i32
  %0 = hivm.hir.pointer_cast(%c0_i64) : memref<64xf32, #hivm.address_space<ub>>
  return
  %1 = arith.addi %arg1, %c7_i32 : i32
  scf.for %i = %c0 to %c4 step %c1 {
    hivm.hir.load ins(%arg0 : memref<?xf32, #hivm.address_space<gm>>) outs(%0 : memref<64xf32, #hivm.address_space<ub>>)
  }
}
