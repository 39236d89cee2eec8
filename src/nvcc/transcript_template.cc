#include "src/nvcc/transcript_template.h"

#include <re2/re2.h>

#include <filesystem>

#include "src/nvcc/temp_files.h"

namespace fastcuda {
namespace {

/// The name nvcc gives a TU's temporaries: the source's file name without
/// its last extension.
std::string Stem(const std::string& source) { return std::filesystem::path(source).stem().string(); }

/// Replaces `from`'s names with `to`'s in one word.
class WordRewriter {
 public:
  WordRewriter(const TuNames& from, const TuNames& to)
      : from_(from),
        to_(to),
        temp_stem_("(tmpxft_[0-9a-f]+_[0-9a-f]+-[0-9]+_)" + RE2::QuoteMeta(Stem(from.source)) + "\\.",
                   RE2::Latin1),
        temp_stem_rewrite_("\\1" + EscapeRewrite(Stem(to.source)) + ".") {}

  std::string operator()(const std::string& word) const {
    if (word == from_.source) return to_.source;
    if (word == from_.absolute_source) return to_.absolute_source;
    if (NamedAfter(word, from_.output)) return to_.output + word.substr(from_.output.size());
    std::string rewritten = word;
    RE2::GlobalReplace(&rewritten, temp_stem_, temp_stem_rewrite_);
    return rewritten;
  }

 private:
  const TuNames& from_;
  const TuNames& to_;
  RE2 temp_stem_;
  std::string temp_stem_rewrite_;
};

}  // namespace

bool NamedAfter(const std::string& word, const std::string& name) {
  return !name.empty() && word.starts_with(name) && (word.size() == name.size() || word[name.size()] == '.');
}

Transcript InstantiateTranscript(const Transcript& representative, const TuNames& from, const TuNames& to) {
  WordRewriter rewrite(from, to);
  Transcript instance = representative;
  for (TranscriptCommand& command : instance.commands) {
    for (std::string& word : command.argv) word = rewrite(word);
    for (Redirection& redirection : command.redirections) redirection.file = rewrite(redirection.file);
    if (!command.depfile.empty()) command.depfile = rewrite(command.depfile);
  }
  return instance;
}

bool SameCommands(const Transcript& a, const Transcript& b) {
  if (a.commands.size() != b.commands.size() || a.variables != b.variables) return false;
  // Each dryrun has a TMPDIR of its own: temporaries compare by name alone.
  const TempFileNamer by_name("", true);
  for (size_t i = 0; i < a.commands.size(); ++i) {
    const TranscriptCommand& x = a.commands[i];
    const TranscriptCommand& y = b.commands[i];
    if (x.kind != y.kind || x.argv.size() != y.argv.size() || x.depfile != y.depfile ||
        x.redirections.size() != y.redirections.size()) {
      return false;
    }
    for (size_t w = 0; w < x.argv.size(); ++w) {
      if (by_name.Rename(x.argv[w]) != by_name.Rename(y.argv[w])) return false;
    }
  }
  return true;
}

}  // namespace fastcuda
