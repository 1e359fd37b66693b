//===- elf_symbols.cpp - .dynsym reader -----------------------------------===//
#include "elf_symbols.hpp"

#include <elf.h>

#include <cstring>
#include <fstream>

namespace perfbound {
namespace {

#if defined(__x86_64__)
constexpr uint16_t kNativeMachine = EM_X86_64;
#elif defined(__aarch64__)
constexpr uint16_t kNativeMachine = EM_AARCH64;
#else
constexpr uint16_t kNativeMachine = EM_NONE;
#endif

}  // namespace

Expected<std::vector<std::string>> read_elf_dynamic_symbols(const std::filesystem::path &path) {
  const std::string where = path.string();
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(where + ": cannot open");
  in.seekg(0, std::ios::end);
  const auto file_size = static_cast<uint64_t>(in.tellg());
  in.seekg(0);
  auto read_at = [&](uint64_t offset, void *out, uint64_t size) -> bool {
    if (offset > file_size || size > file_size - offset) return false;
    in.seekg(static_cast<std::streamoff>(offset));
    in.read(static_cast<char *>(out), static_cast<std::streamsize>(size));
    return static_cast<bool>(in);
  };

  Elf64_Ehdr header{};
  if (file_size < EI_NIDENT || !read_at(0, header.e_ident, EI_NIDENT) ||
      std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0)
    return make_error(where + ": not an ELF file");
  if (header.e_ident[EI_CLASS] != ELFCLASS64) return make_error(where + ": not a 64-bit ELF file");
  if (header.e_ident[EI_DATA] != ELFDATA2LSB) return make_error(where + ": not a little-endian ELF file");
  if (!read_at(0, &header, sizeof(header))) return make_error(where + ": truncated ELF header");
  if (header.e_type != ET_DYN) return make_error(where + ": not a shared library (ELF type " + std::to_string(header.e_type) + ")");
  if (kNativeMachine != EM_NONE && header.e_machine != kNativeMachine)
    return make_error(where + ": built for another architecture (ELF machine " + std::to_string(header.e_machine) + ")");
  if (header.e_shentsize != sizeof(Elf64_Shdr) || header.e_shnum == 0)
    return make_error(where + ": ELF file has no usable section table");

  std::vector<Elf64_Shdr> sections(header.e_shnum);
  if (!read_at(header.e_shoff, sections.data(), sections.size() * sizeof(Elf64_Shdr)))
    return make_error(where + ": truncated ELF section table");

  std::vector<std::string> names;
  for (const Elf64_Shdr &section : sections) {
    if (section.sh_type != SHT_DYNSYM) continue;
    if (section.sh_entsize != sizeof(Elf64_Sym) || section.sh_link >= sections.size())
      return make_error(where + ": malformed .dynsym section");
    const Elf64_Shdr &strtab = sections[section.sh_link];
    std::vector<char> strings(strtab.sh_size + 1, '\0');
    std::vector<Elf64_Sym> symbols(section.sh_size / sizeof(Elf64_Sym));
    if (!read_at(strtab.sh_offset, strings.data(), strtab.sh_size) ||
        !read_at(section.sh_offset, symbols.data(), symbols.size() * sizeof(Elf64_Sym)))
      return make_error(where + ": truncated dynamic symbol table");
    for (const Elf64_Sym &sym : symbols) {
      unsigned binding = ELF64_ST_BIND(sym.st_info);
      bool visible = ELF64_ST_VISIBILITY(sym.st_other) == STV_DEFAULT || ELF64_ST_VISIBILITY(sym.st_other) == STV_PROTECTED;
      if (sym.st_shndx == SHN_UNDEF || (binding != STB_GLOBAL && binding != STB_WEAK) || !visible) continue;
      if (sym.st_name >= strtab.sh_size) continue;
      names.emplace_back(strings.data() + sym.st_name);
    }
  }
  return names;
}

Expected<std::string> read_elf_build_id(const std::filesystem::path &path) {
  const std::string where = path.string();
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(where + ": cannot open");
  in.seekg(0, std::ios::end);
  const auto file_size = static_cast<uint64_t>(in.tellg());
  auto read_at = [&](uint64_t offset, void *out, uint64_t size) -> bool {
    if (offset > file_size || size > file_size - offset) return false;
    in.seekg(static_cast<std::streamoff>(offset));
    in.read(static_cast<char *>(out), static_cast<std::streamsize>(size));
    return static_cast<bool>(in);
  };
  Elf64_Ehdr header{};
  if (!read_at(0, &header, sizeof(header)) || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 ||
      header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_shentsize != sizeof(Elf64_Shdr))
    return make_error(where + ": not a 64-bit ELF file");
  std::vector<Elf64_Shdr> sections(header.e_shnum);
  if (!read_at(header.e_shoff, sections.data(), sections.size() * sizeof(Elf64_Shdr)))
    return make_error(where + ": truncated ELF section table");
  for (const Elf64_Shdr &section : sections) {
    if (section.sh_type != SHT_NOTE || section.sh_size > (1u << 16)) continue;
    std::vector<unsigned char> notes(section.sh_size);
    if (!read_at(section.sh_offset, notes.data(), notes.size())) continue;
    size_t off = 0;
    while (off + sizeof(Elf64_Nhdr) <= notes.size()) {
      Elf64_Nhdr note{};
      std::memcpy(&note, notes.data() + off, sizeof(note));
      size_t name_off = off + sizeof(note);
      size_t desc_off = name_off + ((note.n_namesz + 3u) & ~3u);
      size_t next = desc_off + ((note.n_descsz + 3u) & ~3u);
      if (next > notes.size()) break;
      if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == 4 && std::memcmp(notes.data() + name_off, "GNU", 4) == 0) {
        static const char *kHex = "0123456789abcdef";
        std::string hex;
        for (size_t idx = 0; idx < note.n_descsz; ++idx) {
          hex += kHex[notes[desc_off + idx] >> 4];
          hex += kHex[notes[desc_off + idx] & 0xf];
        }
        return hex;
      }
      off = next;
    }
  }
  return std::string();
}

}  // namespace perfbound
