// Invalid IR the verifier refuses with the line: an alias cycle, a generic op
// whose operand and type counts differ, a function defined twice.
#a = #b
#b = #a
func.func @f(%arg0: memref<16xf32, #hivm.address_space<ub>>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  return
}
// -----
func.func @g(%arg0: memref<16xf32, #hivm.address_space<ub>>) attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  "hivm.hir.vadd"(%arg0, %arg0, %arg0) : (memref<16xf32, #hivm.address_space<ub>>, memref<16xf32, #hivm.address_space<ub>>) -> ()
  return
}
// -----
func.func @h() attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  return
}
func.func @h() attributes {hivm.func_core_type = #hivm.func_core_type<AIV>} {
  return
}
