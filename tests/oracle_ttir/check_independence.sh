#!/usr/bin/env bash
# check_independence.sh ARCHIVE SOURCE_DIR - the TTIR oracle uses nothing of
# the extractor's analysis: the undefined symbols of its archive in
# namespace perfbound::ttir are only the text preparation (ttir_text.hpp,
# split_sections), and its sources include no analysis header.
set -euo pipefail
archive="$1"
src="$2"
allowed='^perfbound::ttir::(split_sections|generic_form_of_unknown_op|invalid_utf8|too_deep|legacy_marker|count_lines_before)(\[abi:cxx11\])?\('
used=$(nm -C --undefined-only "$archive" | sed -n 's/^ *U //p' | grep '^perfbound::ttir::' | sort -u || true)
bad=$(printf '%s\n' "$used" | grep -v -E "$allowed" | grep -v '^$' || true)
if [ -n "$bad" ]; then
  echo "oracle_ttir: the oracle uses symbols of the analysis:"
  printf '  %s\n' "$bad"
  exit 1
fi
# Headers: the oracle's own, the dialect, the text preparation and
# ttir_analysis.hpp (for split_sections; its symbols are checked above).
includes=$(grep -h '^#include "' "$src"/*.cpp "$src"/*.hpp | sed 's/#include "\([^"]*\)".*/\1/' | sort -u)
for h in $includes; do
  case "$h" in
    ttir_oracle.hpp|oracle_record.hpp|tt_dialect.hpp|ttir_text.hpp|ttir_analysis.hpp) ;;
    *) echo "oracle_ttir: the oracle includes $h"; exit 1 ;;
  esac
done
echo "used from perfbound::ttir:"
printf '%s\n' "$used" | sed 's/^/  /'
echo "oracle_ttir: independent"
