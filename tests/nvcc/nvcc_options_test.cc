#include <doctest/doctest.h>

#include "src/nvcc/nvcc_options.h"
#include "tests/test_support.h"

using namespace fastcuda;
using fastcuda::testing::FakeFileSystem;

namespace {
NvccInvocation Scan(std::vector<std::string> args) { return ScanNvccArgs(args); }
}  // namespace

TEST_CASE("compile modes are split; modes that do something else run nvcc") {
  for (const char* mode : {"-c", "-dc", "--device-c", "-ptx", "-cubin", "-fatbin", "-dlink", "--compile"}) {
    CHECK_MESSAGE(!Scan({mode, "a.cu"}).fallback_reason, mode);
  }
  for (const char* mode : {"-E", "-M", "-MM", "--version", "--help", "-lib", "-link", "-run", "--dryrun",
                           "-keep", "-v", "--time=t.csv", "-fdevice-time-trace", "-objtemp"}) {
    CHECK_MESSAGE(Scan({"-c", "a.cu", mode}).fallback_reason, mode);
  }
  CHECK(Scan({"a.cu", "-o", "a.out"}).fallback_reason);  // compile and link
}

TEST_CASE("an option's value is not read as an option") {
  CHECK_FALSE(Scan({"-c", "a.cu", "-Xcompiler", "-E"}).fallback_reason);
  CHECK_FALSE(Scan({"-c", "a.cu", "-o", "-v"}).fallback_reason);
  CHECK_FALSE(Scan({"-c", "a.cu", "-Xcompiler=-E"}).fallback_reason);
}

TEST_CASE("a source read from standard input runs nvcc: its dryrun would consume the source") {
  CHECK(Scan({"-x", "cu", "-c", "-", "-o", "s.o"}).fallback_reason == "the source is standard input (-)");
  CHECK(Scan({"-", "-c", "-x", "cu"}).fallback_reason);
  CHECK_FALSE(Scan({"-c", "a.cu", "-o", "-"}).fallback_reason);  // an output named -
  CHECK_FALSE(Scan({"-c", "a.cu", "-Xcompiler", "-"}).fallback_reason);
}

TEST_CASE("without -o, nvcc names the output after the source, by mode, in -odir") {
  auto output = [](std::vector<std::string> args, const std::string& source) {
    return DefaultNvccOutput(args, source);
  };
  CHECK(output({"-c", "../src/kern.cu"}, "../src/kern.cu") == "kern.o");
  CHECK(output({"-dc", "a.b.cu"}, "/s/a.b.cu") == "a.b.o");
  CHECK(output({"--device-w", "-x", "cu", "plain"}, "plain") == "plain.o");
  CHECK(output({"-c", "-ptx", "k.cu"}, "k.cu") == "k.ptx");  // the earliest phase wins
  CHECK(output({"-fatbin", "-cubin", "k.cu"}, "k.cu") == "k.cubin");
  CHECK(output({"-fatbin", "-c", "k.cu"}, "k.cu") == "k.fatbin");
  CHECK(output({"-c", "k.cu", "-odir", "obj"}, "k.cu") == "obj/k.o");
  CHECK(output({"-c", "k.cu", "--output-directory=/o/"}, "k.cu") == "/o/k.o");
  CHECK(output({"-dlink", "-Xcompiler", "-c", "k.o"}, "k.o") == "a_dlink.o");  // -c is gcc's
  CHECK(output({"k.cu"}, "k.cu") == "a.out");
  CHECK(output({"-x", "cu", "-c", "-"}, "-") == "");  // nvcc names it after a temporary
}

TEST_CASE("depfile options: -MD/-MMD and the target, short and long forms") {
  NvccInvocation md = Scan({"-c", "a.cu", "-MD", "-MT", "obj/a.o", "-MF", "obj/a.o.d"});
  CHECK(md.depfile.system_headers);
  CHECK(md.depfile.target == "obj/a.o");
  NvccInvocation mmd = Scan({"-c", "a.cu", "--generate-nonsystem-dependencies-with-compile",
                             "--dependency-target-name=t1", "-MT", "t2"});
  CHECK_FALSE(mmd.depfile.system_headers);
  CHECK(mmd.depfile.target == "t2");  // nvcc uses the last one
  CHECK_FALSE(md.depfile.phony_targets);
  CHECK(Scan({"-c", "a.cu", "-MD", "-MP"}).depfile.phony_targets);
  CHECK(Scan({"-c", "a.cu", "-MD", "--generate-dependency-targets"}).depfile.phony_targets);
}

TEST_CASE("CMake's command minus its depfile options is the compile database's command") {
  std::vector<std::string> launched = {"nvcc", "-DX", "-MD", "-MT",  "obj/a.o", "-MF",    "obj/a.o.d",
                                       "-x",   "cu",  "-c",  "a.cu", "-o",      "obj/a.o"};
  CHECK(WithoutDepfileOptions(launched) ==
        std::vector<std::string>{"nvcc", "-DX", "-x", "cu", "-c", "a.cu", "-o", "obj/a.o"});
  CHECK(WithoutDepfileOptions({"nvcc", "-MMD", "--dependency-output=a.d", "--dependency-target-name", "t",
                               "-c", "a.cu"}) == std::vector<std::string>{"nvcc", "-c", "a.cu"});
}

TEST_CASE("the depfile nvcc writes: -MF's, else the object's name with .d for -MD or -MMD") {
  CHECK(RequestedDepfile({"nvcc", "-c", "a.cu", "-MD", "-MF", "obj/a.d"}, "obj/a.o") == "obj/a.d");
  CHECK(RequestedDepfile({"nvcc", "-c", "a.cu", "-MMD", "--dependency-output=x.d"}, "a.o") == "x.d");
  CHECK(RequestedDepfile({"nvcc", "-c", "a.cu", "-MMD"}, "obj/a.o") == "obj/a.d");
  CHECK(RequestedDepfile({"nvcc", "-c", "a.cu", "--generate-dependencies-with-compile"}, "a.o") == "a.d");
  CHECK_FALSE(RequestedDepfile({"nvcc", "-c", "a.cu", "-MT", "t"}, "a.o"));
}

TEST_CASE("response files and NVCC_*_FLAGS join the arguments") {
  FakeFileSystem fs({{"/w/args.rsp", "-E \"-DX=a b\"\n"}, {"/w/more.rsp", "-DY"}});
  std::vector<std::string> args =
      EffectiveNvccArgs({"-c", "@args.rsp", "-optf", "more.rsp", "a.cu"}, "-DPRE", "-DPOST", "/w", fs);
  CHECK(args == std::vector<std::string>{"-DPRE", "-c", "-E", "-DX=a b", "-DY", "a.cu", "-DPOST"});
  CHECK(ScanNvccArgs(args).fallback_reason);
  CHECK(EffectiveNvccArgs({"--options-file=more.rsp"}, "", "", "/w", fs) == std::vector<std::string>{"-DY"});
}

TEST_CASE("the response files a command names, in every spelling, absolute") {
  CHECK(ResponseFiles({"-c", "@args.rsp", "-optf", "more.rsp", "--options-file=/abs.rsp", "-DX", "a.cu"},
                      "/w") == std::vector<std::string>{"/w/args.rsp", "/w/more.rsp", "/abs.rsp"});
  CHECK(ResponseFiles({"-c", "a.cu", "-o", "@not-one-after-o"}, "/w").size() == 1);
  CHECK(ResponseFiles({"-c", "a.cu"}, "/w").empty());
}
