#include <doctest/doctest.h>

#include "src/base/depfile.h"

using namespace fastcuda;

TEST_CASE("gcc's depfile: continuations, escaped spaces, -MP phony rules") {
  Depfile depfile = ParseDepfile(
      "w/a.cpp4.ii: a.cu /usr/include/stdio.h \\\n"
      " my\\ dir/h.h cost$$.h \\\n"
      " last.h\n"
      "\n"
      "/usr/include/stdio.h:\n"
      "my\\ dir/h.h:\n");
  CHECK(depfile.targets == std::vector<std::string>{"w/a.cpp4.ii"});
  CHECK(depfile.dependencies ==
        std::vector<std::string>{"a.cu", "/usr/include/stdio.h", "my dir/h.h", "cost$.h", "last.h"});
}

TEST_CASE("nvcc's own layout parses too") {
  Depfile depfile = ParseDepfile("obj/a.o : a.cu \\\n    /x/y.h \\\n    z.h\n");
  CHECK(depfile.targets == std::vector<std::string>{"obj/a.o"});
  CHECK(depfile.dependencies == std::vector<std::string>{"a.cu", "/x/y.h", "z.h"});
}

TEST_CASE("format writes nvcc's layout and parses back") {
  Depfile depfile{{"out dir/a.o"}, {"a.cu", "sp ace.h", "dollar$.h", "hash#.h"}};
  std::string text = FormatDepfile(depfile);
  CHECK(text.rfind("out\\ dir/a.o : a.cu \\\n    sp\\ ace.h", 0) == 0);
  Depfile back = ParseDepfile(text);
  CHECK(back.targets == depfile.targets);
  CHECK(back.dependencies == depfile.dependencies);
}

TEST_CASE("-MP: an empty rule for every dependency but the source, in nvcc's layout") {
  std::string text = FormatDepfile({{"a.o"}, {"a.cu", "/x/y.h", "sp ace.h"}}, true);
  CHECK(text ==
        "a.o : a.cu \\\n    /x/y.h \\\n    sp\\ ace.h\n"
        "\n/x/y.h:\n"
        "\nsp\\ ace.h:\n");
  CHECK(ParseDepfile(text).dependencies == std::vector<std::string>{"a.cu", "/x/y.h", "sp ace.h"});
}

TEST_CASE("the union keeps first-seen order and drops repeats") {
  std::vector<Depfile> parts = {{{"h"}, {"a.cu", "host.h", "common.h"}},
                                {{"d"}, {"a.cu", "common.h", "device_only.h"}}};
  CHECK(UnionOfDependencies(parts) ==
        std::vector<std::string>{"a.cu", "host.h", "common.h", "device_only.h"});
}

TEST_CASE("an empty depfile has no dependencies") { CHECK(ParseDepfile("").dependencies.empty()); }

TEST_CASE("compact: in order, each dependency as what it shares with one before it and the rest") {
  Depfile depfile{{"w/a.cpp4.ii"}, {"a.cu", "/usr/include/stdio.h", "my dir/h.h", "/usr/include/features.h"}};
  std::string text = FormatCompactDepfile(depfile);
  CHECK(text ==
        "# fastcuda compact depfile\n"
        ": w/a.cpp4.ii\n"
        "0 0 a.cu\n"
        "0 0 /usr/include/stdio.h\n"
        "0 0 my dir/h.h\n"
        "2 13 features.h\n");
  Depfile back = ParseDepfile(text);
  CHECK(back.targets == depfile.targets);
  CHECK(back.dependencies == depfile.dependencies);  // nvcc's order: the user's depfile keeps it
  CHECK(ParseDepfile(FormatCompactDepfile({})).dependencies.empty());
}

TEST_CASE("compact: a third of gcc's layout for a CUDA TU's headers; a newline in a path keeps gcc's") {
  Depfile depfile{{"k.o"}, {"k.cu"}};
  for (const char* directory : {"/usr/local/cuda/targets/x86_64-linux/include/crt/",
                                "/usr/include/x86_64-linux-gnu/bits/types/", "/usr/include/c++/12/bits/"}) {
    for (int i = 0; i < 50; ++i) depfile.dependencies.push_back(directory + std::to_string(i) + "_header.h");
  }
  CHECK(FormatCompactDepfile(depfile).size() * 3 < FormatDepfile(depfile).size());
  CHECK(ParseDepfile(FormatCompactDepfile(depfile)).dependencies == depfile.dependencies);
  Depfile latin1{{"k.o"}, {"caf\xe9/k.cu", "caf\xe9/\xff.h"}};  // bytes, not UTF-8
  CHECK(ParseDepfile(FormatCompactDepfile(latin1)).dependencies == latin1.dependencies);
  Depfile odd{{"k.o"}, {"k.cu", "a\nb.h"}};
  CHECK(FormatCompactDepfile(odd) == FormatDepfile(odd));
  CHECK_THROWS(ParseDepfile("# fastcuda compact depfile\n0 0 a.cu\n1 7 too long a share\n"));
  CHECK_THROWS(ParseDepfile("# fastcuda compact depfile\n0 0 a.cu\n1 1 torn"));
}
