//===- facts_document.hpp - the sections of a dsl_facts document ----------===//
//
// The perfbound.dsl_facts/1 document of one evaluated launch is written in
// sections, each from the KernelModel, the launch values, the profile and
// the Evaluation's results (docs/extract_ttir.md lists the members):
//   facts_program.cpp    kernel, signature, launch, grid axes, loops
//   access_shapes.cpp    accesses: offset, mask, contiguity, active bytes
//   facts_work.cpp       bytes by direction (requested, unique), FLOP and
//                        op counts by unit class, dots, reductions
//   schedule.cpp         cores, waves, load balance, persistent loops
//   buffer_footprint.cpp on-chip buffers: live-tile peak, largest fitting
// The driver (dsl_facts.cpp) calls them in this order; unresolved entries
// are collected in that order too.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_EXTRACT_TTIR_FACTS_DOCUMENT_HPP
#define PERFBOUND_EXTRACT_TTIR_FACTS_DOCUMENT_HPP

#include <string>

#include "evaluation.hpp"

namespace perfbound::ttir {

/// What the sections read, and the document and unresolved list they write.
struct FactsDoc {
  const TtirModule &module;
  const KernelModel &k;
  const LaunchValues &lv;
  const Hardware &hw;
  const FactsOptions &options;
  Evaluation &ev;
  json &doc;
  json unresolved = json::array();

  /// Adds an unresolved entry unless one with the same what and reason is there.
  void add_entry(const Unresolved &u);
  void add_unresolved(const std::string &what, const std::string &reason, const SourceLoc &loc) {
    add_entry(unresolved_at(what, reason, loc));
  }
};

/// kernel, signature, launch, grid_axes; returns the used scalar arguments the launch does not give.
json add_kernel_and_launch(FactsDoc &fd);
/// loops; returns the first persistent tile loop (nullptr: none).
const Loop *add_loops(FactsDoc &fd);
/// accesses.
void add_accesses(FactsDoc &fd);
/// bytes.
void add_bytes(FactsDoc &fd);
/// flop, ops, dots, reductions.
void add_work(FactsDoc &fd);
/// cores, schedule.
void add_schedule(FactsDoc &fd, const Loop *persistent);
/// buffers.
void add_buffers(FactsDoc &fd);

}  // namespace perfbound::ttir

#endif  // PERFBOUND_EXTRACT_TTIR_FACTS_DOCUMENT_HPP
