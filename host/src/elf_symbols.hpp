//===- elf_symbols.hpp - exported symbols of an ELF file, without loading it -===//
//
// Why not boost::dll::library_info: in Boost 1.74 it reads the full .symtab,
// which stripped libraries do not have, and pairs it with whichever string
// table comes last. The dynamic symbol table (.dynsym) is what dlopen uses,
// survives stripping, and is what this reader lists.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_HOST_ELF_SYMBOLS_HPP
#define PERFBOUND_HOST_ELF_SYMBOLS_HPP

#include <filesystem>
#include <string>
#include <vector>

#include "expected.hpp"

namespace perfbound {

/// Names of the defined, globally visible dynamic symbols of a 64-bit ELF
/// shared object built for this machine. Errors name the file and say what
/// is wrong ("not an ELF file", "built for another architecture", ...).
Expected<std::vector<std::string>> read_elf_dynamic_symbols(const std::filesystem::path &path);

/// The GNU build id (.note.gnu.build-id) as lowercase hex, or "" when the
/// file has none. The linker derives it from the contents, so it identifies a
/// library build without hashing the whole file.
Expected<std::string> read_elf_build_id(const std::filesystem::path &path);

}  // namespace perfbound

#endif  // PERFBOUND_HOST_ELF_SYMBOLS_HPP
