#include "ninja-gen/manifest_lexer.h"

namespace fastcuda {
namespace {

constexpr size_t kNone = std::string_view::npos;

bool IsNameChar(char c, bool allow_dot) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
         (allow_dot && c == '.');
}

/// Statement keywords; a longer name that starts with one is an identifier.
ManifestToken KeywordOrIdent(std::string_view word) {
  if (word == "build") return ManifestToken::kBuild;
  if (word == "pool") return ManifestToken::kPool;
  if (word == "rule") return ManifestToken::kRule;
  if (word == "default") return ManifestToken::kDefault;
  if (word == "include") return ManifestToken::kInclude;
  if (word == "subninja") return ManifestToken::kSubninja;
  return ManifestToken::kIdent;
}

}  // namespace

std::string_view ManifestTokenName(ManifestToken token) {
  switch (token) {
    case ManifestToken::kError:
      return "lexing error";
    case ManifestToken::kBuild:
      return "'build'";
    case ManifestToken::kColon:
      return "':'";
    case ManifestToken::kDefault:
      return "'default'";
    case ManifestToken::kEquals:
      return "'='";
    case ManifestToken::kIdent:
      return "identifier";
    case ManifestToken::kInclude:
      return "'include'";
    case ManifestToken::kIndent:
      return "indent";
    case ManifestToken::kNewline:
      return "newline";
    case ManifestToken::kPipe2:
      return "'||'";
    case ManifestToken::kPipe:
      return "'|'";
    case ManifestToken::kPipeAt:
      return "'|@'";
    case ManifestToken::kPool:
      return "'pool'";
    case ManifestToken::kRule:
      return "'rule'";
    case ManifestToken::kSubninja:
      return "'subninja'";
    case ManifestToken::kEof:
      return "eof";
  }
  return "";
}

size_t ManifestLexer::SpacesFrom(size_t at) const {
  while (At(at) == ' ') ++at;
  return at;
}

size_t ManifestLexer::CommentLineEnd(size_t at) const {
  at = SpacesFrom(at);
  if (At(at) != '#') return kNone;
  while (At(at) != '\0' && At(at) != '\n') ++at;
  return At(at) == '\n' ? at + 1 : kNone;
}

size_t ManifestLexer::NewlineEnd(size_t at) const {
  if (At(at) == '\n') return at + 1;
  if (At(at) == '\r' && At(at + 1) == '\n') return at + 2;
  return kNone;
}

size_t ManifestLexer::NameEnd(size_t at, bool allow_dot) const {
  while (IsNameChar(At(at), allow_dot)) ++at;
  return at;
}

ManifestToken ManifestLexer::Lex(size_t* end) {
  size_t start = offset_;
  size_t after_spaces = SpacesFrom(start);
  if (size_t newline_end = NewlineEnd(after_spaces); newline_end != kNone) {
    *end = newline_end;
    return ManifestToken::kNewline;
  }
  *end = after_spaces;
  if (after_spaces > start) return ManifestToken::kIndent;
  if (size_t name_end = NameEnd(start, true); name_end > start) {
    *end = name_end;
    return KeywordOrIdent(text_.substr(start, name_end - start));
  }
  *end = start + 1;
  switch (At(start)) {
    case '=':
      return ManifestToken::kEquals;
    case ':':
      return ManifestToken::kColon;
    case '\0':
      *end = start;
      return ManifestToken::kEof;
    case '|':
      break;
    default:
      return ManifestToken::kError;
  }
  if (At(start + 1) == '@' || At(start + 1) == '|') *end = start + 2;
  if (At(start + 1) == '@') return ManifestToken::kPipeAt;
  return At(start + 1) == '|' ? ManifestToken::kPipe2 : ManifestToken::kPipe;
}

ManifestToken ManifestLexer::ReadToken() {
  for (size_t comment_end; (comment_end = CommentLineEnd(offset_)) != kNone;) offset_ = comment_end;
  token_begin_ = offset_;
  size_t end = offset_;
  ManifestToken token = Lex(&end);
  offset_ = end;
  if (token != ManifestToken::kNewline && token != ManifestToken::kEof) EatWhitespace();
  return token;
}

bool ManifestLexer::PeekToken(ManifestToken token) {
  if (ReadToken() == token) return true;
  UnreadToken();
  return false;
}

void ManifestLexer::EatWhitespace() {
  for (;;) {
    if (At(offset_) == ' ') ++offset_;
    else if (At(offset_) == '$' && NewlineEnd(offset_ + 1) != kNone) offset_ = NewlineEnd(offset_ + 1);
    else return;
  }
}

std::string ManifestLexer::ReadIdent() {
  token_begin_ = offset_;
  size_t end = NameEnd(offset_, true);
  if (end == offset_) return "";
  std::string name(text_.substr(offset_, end - offset_));
  offset_ = end;
  EatWhitespace();
  return name;
}

ManifestValue ManifestLexer::ReadValue(bool path) {
  ManifestValue value;
  size_t start = offset_;
  for (;;) {
    start = offset_;
    char c = At(start);
    if (size_t newline_end = NewlineEnd(start); newline_end != kNone) {
      if (!path) offset_ = newline_end;
      break;
    }
    if (c == ' ' || c == ':' || c == '|') {
      if (path) break;
      value.AddText(text_.substr(start, 1));
      ++offset_;
    } else if (c == '$') {
      ReadEscape(value);
    } else if (c == '\0') {
      Fail(start, "unexpected EOF");
    } else if (c == '\r') {
      Fail(start, "lexing error");
    } else {
      while (At(offset_) != '\0' && std::string_view("$ :\r\n|").find(At(offset_)) == kNone) ++offset_;
      value.AddText(text_.substr(start, offset_ - start));
    }
  }
  token_begin_ = start;
  if (path) EatWhitespace();
  return value;
}

void ManifestLexer::ReadEscape(ManifestValue& value) {
  size_t start = offset_;
  char next = At(start + 1);
  if (next == '$' || next == ' ' || next == ':') {
    value.AddText(text_.substr(start + 1, 1));
    offset_ = start + 2;
  } else if (NewlineEnd(start + 1) != kNone) {
    offset_ = SpacesFrom(NewlineEnd(start + 1));
  } else if (size_t end = NameEnd(start + 2, true); next == '{' && end > start + 2 && At(end) == '}') {
    value.AddVariable(text_.substr(start + 2, end - start - 2));
    offset_ = end + 1;
  } else if (size_t simple_end = NameEnd(start + 1, false); simple_end > start + 1) {
    value.AddVariable(text_.substr(start + 1, simple_end - start - 1));
    offset_ = simple_end;
  } else {
    Fail(start, "bad $-escape (literal $ must be written as $$)");
  }
}

void ManifestLexer::Fail(size_t offset, const std::string& message) const {
  throw ManifestError(file_, text_, offset, message);
}

void ManifestLexer::FailAtErrorToken() const {
  FailAtToken(At(token_begin_) == '\t' ? "tabs are not allowed, use spaces" : "lexing error");
}

void ManifestLexer::Expect(ManifestToken expected) {
  ManifestToken token = ReadToken();
  if (token == expected) return;
  std::string message = "expected " + std::string(ManifestTokenName(expected)) + ", got " +
                        std::string(ManifestTokenName(token));
  if (expected == ManifestToken::kColon) message += " ($ also escapes ':')";
  FailAtToken(message);
}

}  // namespace fastcuda
