// The tokens of Ninja's manifest syntax, read as Ninja's own lexer
// (src/lexer.in.cc) reads them, with byte offsets for spans and errors.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "ninja-gen/manifest.h"

namespace fastcuda {

/// A token of a manifest's statement structure.
enum class ManifestToken {
  kError,
  kBuild,
  kColon,
  kDefault,
  kEquals,
  kIdent,
  kInclude,
  kIndent,
  kNewline,
  kPipe,
  kPipe2,
  kPipeAt,
  kPool,
  kRule,
  kSubninja,
  kEof,
};

/// How Ninja's messages name a token ("'build'", "newline", ...).
std::string_view ManifestTokenName(ManifestToken token);

/// Reads one file's text. Like Ninja, it stops at the end or at a NUL byte,
/// skips comment lines, accepts "\r\n" for "\n", and eats the spaces and
/// `$`-newlines after every token but a newline.
class ManifestLexer {
 public:
  /// `file` names the text in errors; the text must outlive the lexer.
  ManifestLexer(std::string file, std::string_view text) : file_(std::move(file)), text_(text) {}

  /// The next token, comment lines skipped.
  ManifestToken ReadToken();
  /// Steps back to before the token ReadToken last read.
  void UnreadToken() { offset_ = token_begin_; }
  /// Reads the next token if it is `token`.
  bool PeekToken(ManifestToken token);
  /// A rule, pool or variable name, or "" (and no progress) if none is next.
  std::string ReadIdent();
  /// A path up to the next space, `:`, `|` or newline; empty if there is none.
  ManifestValue ReadPath() { return ReadValue(true); }
  /// The rest of the line (the newline is read too), spaces kept.
  ManifestValue ReadVarValue() { return ReadValue(false); }

  /// Where the next read starts.
  size_t offset() const { return offset_; }
  /// Where the last token, name or value read began.
  size_t token_begin() const { return token_begin_; }
  /// Throws the ManifestError at byte `offset` of this file.
  [[noreturn]] void Fail(size_t offset, const std::string& message) const;
  /// Throws the ManifestError at the last token read.
  [[noreturn]] void FailAtToken(const std::string& message) const { Fail(token_begin_, message); }
  /// Throws "expected X, got Y" unless the next token is `expected`.
  void Expect(ManifestToken expected);
  /// Throws the error for the kError token ReadToken just read.
  [[noreturn]] void FailAtErrorToken() const;

 private:
  /// The byte at `at`, or NUL past the end (Ninja reads a NUL-terminated buffer).
  char At(size_t at) const { return at < text_.size() ? text_[at] : '\0'; }
  /// The first non-space at or after `at`.
  size_t SpacesFrom(size_t at) const;
  /// The end of a comment line starting at `at` after spaces, or npos.
  size_t CommentLineEnd(size_t at) const;
  /// The end of a `\n` or `\r\n` at `at`, or npos.
  size_t NewlineEnd(size_t at) const;
  /// The end of a name at `at` ([a-zA-Z0-9_-], and `.` if `allow_dot`).
  size_t NameEnd(size_t at, bool allow_dot) const;
  /// The token at offset_, which ends at `*end`.
  ManifestToken Lex(size_t* end);
  /// Skips spaces and `$`-newlines.
  void EatWhitespace();
  /// A path (ends before a space, `:`, `|` or newline) or a value (ends after the newline).
  ManifestValue ReadValue(bool path);
  /// Reads the `$` escape at offset_ into `value`.
  void ReadEscape(ManifestValue& value);

  std::string file_;
  std::string_view text_;
  size_t offset_ = 0;
  size_t token_begin_ = 0;
};

}  // namespace fastcuda
