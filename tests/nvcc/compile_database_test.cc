#include <doctest/doctest.h>

#include "src/nvcc/compile_database.h"

using namespace fastcuda;

TEST_CASE("command and arguments forms, relative directory, launcher prefix, other compilers") {
  CompileDatabase db = ParseCompileDatabase(R"([
    {"directory": "/b", "file": "/s/a.cu", "output": "a.o",
     "arguments": ["/usr/local/cuda/bin/nvcc", "-c", "/s/a.cu", "-o", "a.o"]},
    {"directory": "sub", "file": "b.cu",
     "command": "ccache nvcc -DX=\"a b\" -c b.cu -o obj/b.o"},
    {"directory": "/b", "file": "c.cpp", "command": "g++ -I/opt/nvcc -c c.cpp -o c.o"}
  ])",
                                            "db.json", "/base");
  REQUIRE(db.entries.size() == 2);
  CHECK(db.skipped == 1);
  CHECK(db.entries[0].directory == "/b");
  CHECK(db.entries[0].output == "a.o");
  CHECK(db.entries[0].nvcc.front() == "/usr/local/cuda/bin/nvcc");
  CHECK(db.entries[1].directory == "/base/sub");
  CHECK(db.entries[1].output == "obj/b.o");  // from -o
  CHECK(db.entries[1].nvcc == std::vector<std::string>{"nvcc", "-DX=a b", "-c", "b.cu", "-o", "obj/b.o"});
  CHECK(db.entries[1].launcher == std::vector<std::string>{"ccache"});
  CHECK(db.entries[0].launcher.empty());
}

TEST_CASE("malformed JSON names the file and the position") {
  try {
    ParseCompileDatabase("[{\"directory\": \"/b\",, }]", "broken.json", "/");
    FAIL("no error");
  } catch (const CompileDatabaseError& error) {
    std::string message = error.what();
    CHECK(message.find("broken.json") == 0);
    CHECK(message.find("line 1, column 21") != std::string::npos);
  }
  CHECK_THROWS_AS(ParseCompileDatabase("{}", "x.json", "/"), CompileDatabaseError);
  // Found by the fuzzer: a number too large, arguments that are not strings, a bad quote.
  CHECK_THROWS_AS(ParseCompileDatabase("4e444421", "x.json", "/"), CompileDatabaseError);
  CHECK_THROWS_AS(ParseCompileDatabase(R"([{"directory": "/", "arguments": [1]}])", "x.json", "/"),
                  CompileDatabaseError);
  CHECK_THROWS_AS(ParseCompileDatabase(R"([{"directory": "/", "command": "nvcc 'a"}])", "x.json", "/"),
                  CompileDatabaseError);
  CHECK_THROWS_AS(ParseCompileDatabase("", "x.json", "/"), CompileDatabaseError);
}

TEST_CASE("missing fields: no directory is an error") {
  CHECK_THROWS_AS(
      ParseCompileDatabase(R"([{"file": "a.cu", "command": "nvcc -c a.cu -o a.o"}])", "x.json", "/"),
      CompileDatabaseError);
}

TEST_CASE("a malformed entry is an error that names it, never an entry left out") {
  auto message = [](const char* text) -> std::string {
    try {
      ParseCompileDatabase(text, "x.json", "/");
    } catch (const CompileDatabaseError& error) {
      return error.what();
    }
    return "no error";
  };
  const std::string fine = R"({"directory": "/", "file": "a.cu", "command": "nvcc -c a.cu -o a.o"}, )";
  CHECK(
      message(("[" + fine + R"({"directory": "/", "file": "b.cu", "arguments": "nvcc -c b.cu"}])").c_str()) ==
      "x.json: entry 1: \"arguments\" is not an array of strings");
  CHECK(message(R"([{"directory": "/", "file": "a.cu", "command": 7}])") ==
        "x.json: entry 0: \"command\" is not a string");
  CHECK(message(R"([{"directory": "/", "file": "a.cu"}])") ==
        "x.json: entry 0: has neither \"arguments\" nor \"command\"");
  CHECK(message(("[" + fine + "7]").c_str()) == "x.json: entry 1: is not a JSON object");
  CHECK(message(R"([{"directory": ["/"], "file": "a.cu", "command": "nvcc -c a.cu"}])") ==
        "x.json: entry 0: \"directory\" is not a string");
  CHECK(message(R"([{"directory": "/", "file": "a.cu", "output": 1, "command": "g++ -c a.cc"}])") ==
        "x.json: entry 0: \"output\" is not a string");
}

TEST_CASE("no output and no -o: the object nvcc names after the source, else an error") {
  CompileDatabase db = ParseCompileDatabase(R"([
    {"directory": "/b", "file": "/s/kern.cu", "command": "nvcc -c /s/kern.cu"},
    {"directory": "/b", "file": "k.cu", "arguments": ["nvcc", "-ptx", "k.cu", "-odir", "ptx"]}
  ])",
                                            "db.json", "/");
  REQUIRE(db.entries.size() == 2);
  CHECK(db.entries[0].output == "kern.o");  // in the entry's directory, as nvcc writes it
  CHECK(db.entries[1].output == "ptx/k.ptx");
  // From standard input nvcc names the object after a temporary: nothing to build.
  CHECK_THROWS_AS(ParseCompileDatabase(R"([{"directory": "/", "file": "-", "command": "nvcc -x cu -c -"}])",
                                       "x.json", "/"),
                  CompileDatabaseError);
}

TEST_CASE("IsNvcc") {
  CHECK(IsNvcc("nvcc"));
  CHECK(IsNvcc("/usr/local/cuda-13.0/bin/nvcc"));
  CHECK_FALSE(IsNvcc("nvcc-wrapper"));
  CHECK_FALSE(IsNvcc("g++"));
}
