#include <doctest/doctest.h>

#include "ninja-gen/manifest_lexer.h"

#include <string>
#include <vector>

using namespace fastcuda;

namespace {

/// Every token of `text` up to the end, by name.
std::vector<std::string> TokenNames(std::string_view text) {
  ManifestLexer lexer("input", text);
  std::vector<std::string> names;
  for (ManifestToken token = lexer.ReadToken();; token = lexer.ReadToken()) {
    names.emplace_back(ManifestTokenName(token));
    if (token == ManifestToken::kEof || token == ManifestToken::kError) return names;
  }
}

/// `value` as text with references written ${name}.
std::string Shown(const ManifestValue& value) {
  return value.Evaluate([](const std::string& name) { return "${" + name + "}"; });
}

/// The ManifestError `read` throws, as "line:column: message".
template <typename Read>
std::string LexErrorOf(Read read) {
  try {
    read();
  } catch (const ManifestError& error) {
    return std::to_string(error.line()) + ":" + std::to_string(error.column()) + ": " + error.message();
  }
  return "no error";
}

}  // namespace

TEST_CASE("statement tokens, keywords only as whole names") {
  CHECK(TokenNames("build builds pool rule default include subninja x.y-z_0\n") ==
        std::vector<std::string>{"'build'", "identifier", "'pool'", "'rule'", "'default'", "'include'",
                                 "'subninja'", "identifier", "newline", "eof"});
  CHECK(TokenNames("= : | || |@ \n") ==
        std::vector<std::string>{"'='", "':'", "'|'", "'||'", "'|@'", "newline", "eof"});
}

TEST_CASE("comment lines vanish, indented ones too; a blank line is a newline, CRLF one too") {
  CHECK(
      TokenNames("# c\n   # indented\nx\n  \n\r\n  y") ==
      std::vector<std::string>{"identifier", "newline", "newline", "newline", "indent", "identifier", "eof"});
  // A comment must end in a newline, as in Ninja.
  CHECK(TokenNames("# c") == std::vector<std::string>{"lexing error"});
}

TEST_CASE("spaces and $-newlines after a token are eaten; a NUL byte ends the text") {
  ManifestLexer lexer("input", "build $\n   $\r\n x");
  CHECK(lexer.ReadToken() == ManifestToken::kBuild);
  CHECK(lexer.ReadToken() == ManifestToken::kIdent);
  CHECK(lexer.token_begin() == 15);
  CHECK(TokenNames(std::string_view("x\0y", 3)) == std::vector<std::string>{"identifier", "eof"});
}

TEST_CASE("escapes in values: $$ $  $: $newline (next line's indent skipped), ${a.b} and $simple") {
  ManifestLexer lexer("input", "a$$b$ c$:d$\n    e ${x.y}$z.w | : \r\nnext");
  CHECK(Shown(lexer.ReadVarValue()) == "a$b c:de ${x.y}${z}.w | : ");
  CHECK(lexer.ReadToken() == ManifestToken::kIdent);
}

TEST_CASE("a path ends at a space, ':', '|' or newline, which stay unread") {
  ManifestLexer lexer("input", "out$ 1 dir/$out: rule ||x\r\n");
  CHECK(Shown(lexer.ReadPath()) == "out 1");
  CHECK(Shown(lexer.ReadPath()) == "dir/${out}");
  CHECK(lexer.ReadPath().empty());
  CHECK(lexer.ReadToken() == ManifestToken::kColon);
  CHECK(lexer.ReadIdent() == "rule");
  CHECK(lexer.ReadToken() == ManifestToken::kPipe2);
  CHECK(Shown(lexer.ReadPath()) == "x");
  CHECK(lexer.ReadToken() == ManifestToken::kNewline);
}

TEST_CASE("lexing errors carry the line and column of the offending byte") {
  CHECK(LexErrorOf([] { ManifestLexer("input", "x = 3").ReadVarValue(); }) == "1:6: unexpected EOF");
  CHECK(LexErrorOf([] { ManifestLexer("input", "a ${b\n").ReadVarValue(); }) ==
        "1:3: bad $-escape (literal $ must be written as $$)");
  CHECK(LexErrorOf([] { ManifestLexer("input", "a$\n $.\n").ReadVarValue(); }) ==
        "2:2: bad $-escape (literal $ must be written as $$)");
  // Ninja 1.14's $^ is not Ninja 1.11-1.13's.
  CHECK(LexErrorOf([] { ManifestLexer("input", "a$^\n").ReadVarValue(); }) ==
        "1:2: bad $-escape (literal $ must be written as $$)");
  CHECK(LexErrorOf([] { ManifestLexer("input", "a\rb\n").ReadVarValue(); }) == "1:2: lexing error");
  CHECK(LexErrorOf([] {
          ManifestLexer lexer("input", "\tx");
          lexer.ReadToken();
          lexer.FailAtErrorToken();
        }) == "1:1: tabs are not allowed, use spaces");
  CHECK(LexErrorOf([] {
          ManifestLexer lexer("input", "build x y\n");
          lexer.ReadToken();
          lexer.Expect(ManifestToken::kColon);
        }) == "1:7: expected ':', got identifier ($ also escapes ':')");
}
