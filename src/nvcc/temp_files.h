// nvcc's temporary file names, and the stable names FastCuda gives them.
#pragma once

#include <string>
#include <string_view>

namespace fastcuda {

/// Maps nvcc's temporaries to stable paths in one work directory.
///
/// nvcc names a temporary `TMPDIR/tmpxft_PID_COUNTER-N_NAME`, where N is a
/// sequence number within the call and NAME is what `--keep` would call it.
/// Full paths become `WORK_DIR/NAME`; bare names (cudafe++'s
/// `--stub_file_name`, cicc's `--include_file_name`, which the generated
/// sources `#include` from their own directory) become the bare `NAME`.
/// Where two temporaries share a NAME, `keep_sequence_numbers` keeps N in
/// front of it (`N_NAME`) so that names stay distinct.
class TempFileNamer {
 public:
  TempFileNamer(std::string work_dir, bool keep_sequence_numbers);

  /// Replaces every temporary name inside `word` (a word may hold several,
  /// or hold one inside quotes or after `file=`).
  std::string Rename(std::string_view word) const;

  /// True if `word` mentions an nvcc temporary.
  static bool MentionsTemp(std::string_view word);

 private:
  std::string full_path_rewrite_;
  std::string bare_name_rewrite_;
};

/// Escapes text for use in an RE2 rewrite string, where `\` is special.
std::string EscapeRewrite(std::string_view text);

}  // namespace fastcuda
