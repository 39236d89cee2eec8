#[=======================================================================[.rst:
FastCuda
--------

Builds every CUDA sub-step of the whole project in one Ninja graph: the
per-architecture ``cicc``/``ptxas`` chains of every translation unit, the host
steps of all of them, scheduled together instead of one ``nvcc`` call at a
time.

Use it in one of two ways::

  include(FastCuda)      # in the project, after project()

  cmake -DCMAKE_PROJECT_INCLUDE=/path/to/fastcuda/cmake/FastCuda.cmake ...
                         # an unmodified project

Nothing else changes: ``cmake --build`` (and any IDE that drives it) builds
as before, with the Ninja, Ninja Multi-Config and Unix Makefiles generators.
The module needs CMake 3.20 or newer.

How it works
^^^^^^^^^^^^

At the end of configuring the top-level directory the module

* turns on ``CMAKE_EXPORT_COMPILE_COMMANDS`` (``compile_commands.json`` stays
  as CMake writes it, usable by clangd),
* sets the ``CUDA_COMPILER_LAUNCHER`` of every target with CUDA sources to
  ``fastcuda`` followed by any launcher the target already had (``ccache``,
  ``sccache``). The graph in ``<build>/fastcuda`` runs that launcher on the
  steps its tool supports (the host compile; with ``sccache`` also ``cicc``
  and ``ptxas``), through ``--launcher-for``, since CMake leaves launchers out
  of ``compile_commands.json``.

With the Ninja generators, the launcher runs the graph itself
(``fastcuda --build-graph <build>/fastcuda``): the first CUDA object the
build needs runs every sub-step of every CUDA TU that the build's targets
need in one Ninja graph, with the build's ``-j``; the other objects find
theirs built and return at once, printing what their TU's steps printed, as
nvcc would. Building one object (``ninja path/x.cu.o``, ``ninja
src/x.cu^``, an IDE's "compile this file") or one target (``cmake --build
--target``) runs only the sub-steps it needs, and a build with nothing to do
runs only ``fastcuda_toolchain``, which checks in a few milliseconds that
the toolchain's environment (``CPATH``, ``NVCC_APPEND_FLAGS``...) and the
host compiler behind its name have not changed what nvcc would write; every
CUDA object depends on its stamp.
While the graph runs, its progress goes to the outer Ninja's own output,
which prints the launcher's only when it ends: a status line redrawn at a
terminal, a plain line each tenth of the steps and every 10 s on a pipe
(``FASTCUDA_PROGRESS=0`` in the build's environment turns it off).

With the Makefile generators a custom target ``fastcuda_graph`` runs
``fastcuda build --compdb compile_commands.json --out <build>/fastcuda``
before every target with CUDA sources (a launcher waiting for the graph
would hold a token of make's jobserver), in the console pool. Make then
finds the objects the graph built up to date and prints no line for them,
so the graph prints, as it builds each object, the line CMake's rule would
have: ``Building CUDA object CMakeFiles/t.dir/k.cu.o`` (without make's
percentage, which the graph cannot know), and what a step prints under a
line naming that step, but none of its Ninja's per-step status lines,
which would run between make's lines. A build with nothing to do prints no such line. When CMake's own
rule for an object does run, the launcher (``fastcuda --graph
<build>/fastcuda``) finds the object the graph built from the same
command, checks that nothing it depends on is newer, writes the depfile
CMake asked for and returns at once; otherwise it builds the TU itself. Under ``make -k`` the graph goes on past a failed step and
succeeds, so that make goes on too: each object whose steps failed is then
compiled by its own rule, which fails as nvcc would.

Either way the launcher never keeps a stale object. CMake allows no custom
target in a build directory whose path holds ``#``; there the launcher
(``fastcuda`` alone) splits each TU alone.

Cache variables
^^^^^^^^^^^^^^^

All but ``FASTCUDA_ENABLE`` and ``FASTCUDA_JOBS`` are advanced.

.. variable:: FASTCUDA_ENABLE

  ``ON`` by default. ``OFF`` leaves the project exactly as without the module.

.. variable:: FASTCUDA_EXECUTABLE

  The ``fastcuda`` tool. When empty the module uses, in order: the tool of
  the FastCuda package found by ``find_package(FastCuda)``, the ``fastcuda``
  target of a FastCuda source tree added with ``add_subdirectory`` or
  ``FetchContent``, the ``build/bin/fastcuda`` of the source tree this module
  lives in, and ``fastcuda`` on ``PATH``. Configuring stops with an error if
  there is none.

.. variable:: FASTCUDA_JOBS

  Parallel sub-steps of the graph; ``0`` (the default) means the build's own
  ``-j`` (``cmake --build -j 4``, ``ninja -j 4``, make's ``-j``), at most one
  per CPU that the machine's limits leave (a container's quota, the affinity).

.. variable:: FASTCUDA_MODULE_ID

  ``nvcc`` (the default: cudafe++ makes the module id, objects match nvcc's)
  or ``own`` (FastCuda writes it, so cicc need not wait for cudafe++). Empty
  takes the ``FASTCUDA_MODULE_ID`` environment variable of the build.

.. variable:: FASTCUDA_SPLIT_COMPILE

  ``off`` (the default), ``auto`` or a thread count for cicc and ptxas. Empty
  takes the ``FASTCUDA_SPLIT_COMPILE`` environment variable of the build. See
  the README for what both modes change in the objects.

.. variable:: FASTCUDA_REMOTE

  A REAPI endpoint, ``grpc://HOST:PORT`` or ``grpcs://HOST:PORT``: cicc,
  ptxas, fatbinary and cudafe++ run there through FastCuda's remote client
  (see the README), at most ``FASTCUDA_REMOTE_JOBS`` of them at once and
  ``FASTCUDA_LOCAL_JOBS`` local steps (environment variables of the build).
  Empty takes the ``FASTCUDA_REMOTE`` environment variable of the build.

.. variable:: FASTCUDA_EARLY_HOST

  ``off`` (the default) or ``on``: a TU's host compile does not wait for its
  device code; the fatbin is linked into its object afterwards. Empty takes
  the ``FASTCUDA_EARLY_HOST`` environment variable of the build.

Commands
^^^^^^^^

.. command:: fastcuda_exclude

  ::

    fastcuda_exclude(<target>...)

  Leaves the CUDA sources of the targets out of the graph; nvcc compiles them
  as it would without FastCuda.
#]=======================================================================]

# Before any command an older CMake would stop at with a less clear error:
# cmake_path and the EXPORT_COMPILE_COMMANDS target property came in 3.20.
if(CMAKE_VERSION VERSION_LESS 3.20)
  message(FATAL_ERROR "FastCuda needs CMake 3.20 or newer; this is CMake ${CMAKE_VERSION}.")
endif()

include_guard(GLOBAL)

# The policies of whichever project includes the module (through its
# cmake_minimum_required) would otherwise decide how if(), option() and
# set(CACHE) behave here; under a project requiring CMake 3.2, IN_LIST does
# not parse. Functions keep the policies they were defined with, so these also
# hold for the deferred _fastcuda_finalize. 3.25 is the CMake it is tested with.
cmake_policy(PUSH)
cmake_policy(VERSION 3.20...3.25)

option(FASTCUDA_ENABLE "Build CUDA sub-steps through FastCuda's global graph" ON)
set(FASTCUDA_EXECUTABLE "" CACHE FILEPATH "The fastcuda tool (empty: find it)")
set(FASTCUDA_JOBS 0 CACHE STRING "Parallel sub-steps of the FastCuda graph (0: the build's own -j)")
set(FASTCUDA_MODULE_ID "" CACHE STRING "Module ids: nvcc or own (empty: the environment's)")
set(FASTCUDA_SPLIT_COMPILE "" CACHE STRING "Threads for cicc and ptxas: off, auto or N (empty: the environment's)")
set(FASTCUDA_EARLY_HOST "" CACHE STRING "Host compiles before the device code: on or off (empty: the environment's)")
set(FASTCUDA_REMOTE "" CACHE STRING "REAPI endpoint for cicc, ptxas, fatbinary: grpc://HOST:PORT (empty: the environment's)")
mark_as_advanced(FASTCUDA_EXECUTABLE FASTCUDA_MODULE_ID FASTCUDA_SPLIT_COMPILE FASTCUDA_EARLY_HOST FASTCUDA_REMOTE)

set_property(GLOBAL PROPERTY _FASTCUDA_MODULE_DIR "${CMAKE_CURRENT_LIST_DIR}")

function(fastcuda_exclude)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "" "")
  foreach(target IN LISTS arg_UNPARSED_ARGUMENTS)
    if(NOT TARGET "${target}")
      message(FATAL_ERROR "fastcuda_exclude: no target named '${target}'")
    endif()
    set_property(TARGET "${target}" PROPERTY FASTCUDA_EXCLUDED TRUE)
  endforeach()
endfunction()

# Sets <out_var> to the fastcuda tool, or to an empty string if none is found.
function(_fastcuda_find_executable out_var)
  get_property(module_dir GLOBAL PROPERTY _FASTCUDA_MODULE_DIR)
  get_property(in_tree GLOBAL PROPERTY FASTCUDA_BUILT_EXECUTABLE)
  set(found "")
  if(FASTCUDA_EXECUTABLE)
    set(found "${FASTCUDA_EXECUTABLE}")
  elseif(FASTCUDA_PACKAGED_EXECUTABLE)
    set(found "${FASTCUDA_PACKAGED_EXECUTABLE}")
  elseif(in_tree)
    set(found "${in_tree}")
  elseif(EXISTS "${module_dir}/../build/bin/fastcuda")
    cmake_path(ABSOLUTE_PATH module_dir NORMALIZE OUTPUT_VARIABLE source_dir)
    set(found "${source_dir}/../build/bin/fastcuda")
    cmake_path(NORMAL_PATH found)
  else()
    find_program(_FASTCUDA_ON_PATH fastcuda)
    mark_as_advanced(_FASTCUDA_ON_PATH)
    if(_FASTCUDA_ON_PATH)
      set(found "${_FASTCUDA_ON_PATH}")
    endif()
  endif()
  set(${out_var} "${found}" PARENT_SCOPE)
endfunction()

# Sets <out_var> to the remaining arguments as one string of POSIX shell words.
function(_fastcuda_shell_words out_var)
  set(text "")
  foreach(word IN LISTS ARGN)
    if(NOT word MATCHES "^[A-Za-z0-9_./=:+,@%-]+$")
      string(REPLACE "'" "'\\''" word "${word}")
      set(word "'${word}'")
    endif()
    string(APPEND text " ${word}")
  endforeach()
  string(STRIP "${text}" text)
  set(${out_var} "${text}" PARENT_SCOPE)
endfunction()

# Sets <out_var> to the CUDA sources of <target> (`.cu` files and sources
# whose LANGUAGE is CUDA) as absolute paths; generator expressions, which name
# no file of the target's own, are left out.
function(_fastcuda_cuda_sources out_var target)
  get_target_property(sources "${target}" SOURCES)
  get_target_property(source_dir "${target}" SOURCE_DIR)
  set(found "")
  foreach(source IN LISTS sources)
    if(source MATCHES "^\\$<")
      continue()
    endif()
    get_source_file_property(language "${source}" TARGET_DIRECTORY "${target}" LANGUAGE)
    if(source MATCHES "\\.cu$" OR language STREQUAL "CUDA")
      cmake_path(ABSOLUTE_PATH source BASE_DIRECTORY "${source_dir}")
      list(APPEND found "${source}")
    endif()
  endforeach()
  set(${out_var} "${found}" PARENT_SCOPE)
endfunction()

# Appends to <out_var> the targets of <dir> and its subdirectories that
# compile CUDA sources.
function(_fastcuda_cuda_targets out_var dir)
  set(found "${${out_var}}")
  get_property(targets DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
  foreach(target IN LISTS targets)
    get_target_property(type "${target}" TYPE)
    if(type MATCHES "^(STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY|OBJECT_LIBRARY|EXECUTABLE)$")
      _fastcuda_cuda_sources(cuda_sources "${target}")
      if(cuda_sources)
        list(APPEND found "${target}")
      endif()
    endif()
  endforeach()
  get_property(subdirectories DIRECTORY "${dir}" PROPERTY SUBDIRECTORIES)
  foreach(subdirectory IN LISTS subdirectories)
    _fastcuda_cuda_targets(found "${subdirectory}")
  endforeach()
  set(${out_var} "${found}" PARENT_SCOPE)
endfunction()

# Puts <launcher> (a list) before each target's own CUDA launcher, if any.
function(_fastcuda_set_launchers targets launcher)
  foreach(target IN LISTS targets)
    set(combined ${launcher})
    get_target_property(user_launcher "${target}" CUDA_COMPILER_LAUNCHER)
    if(user_launcher)
      list(APPEND combined ${user_launcher})
    endif()
    set_target_properties("${target}" PROPERTIES
      CUDA_COMPILER_LAUNCHER "${combined}"
      EXPORT_COMPILE_COMMANDS ON)
  endforeach()
endfunction()

# Builds <targets> through one graph that a custom target, fastcuda_graph,
# runs before them with `<tool> build ARGN` (make: its jobserver's tokens would
# otherwise sit with launchers waiting for the graph); each target's launcher
# then finds its objects built there.
function(_fastcuda_add_graph_target targets tool graph_dir)
  add_custom_target(fastcuda_graph
    COMMAND "${tool}" build ${ARGN}
    COMMENT "FastCuda: building the CUDA sub-steps of every target"
    USES_TERMINAL VERBATIM)
  if(TARGET fastcuda)
    add_dependencies(fastcuda_graph fastcuda)
  endif()
  foreach(target IN LISTS targets)
    add_dependencies("${target}" fastcuda_graph)
  endforeach()
  _fastcuda_set_launchers("${targets}" "${tool};--graph;${graph_dir}")
endfunction()

# Makes every CUDA object of <targets> depend on <file>.
function(_fastcuda_object_depends targets file)
  foreach(target IN LISTS targets)
    _fastcuda_cuda_sources(sources "${target}")
    foreach(source IN LISTS sources)
      set_property(SOURCE "${source}" TARGET_DIRECTORY "${target}" APPEND PROPERTY OBJECT_DEPENDS "${file}")
    endforeach()
  endforeach()
endfunction()

# Builds <targets> through one graph that their launchers run (Ninja): the
# first object the build needs runs the graph for every TU the build's
# targets need, the others find theirs built. Building one object or target
# builds only what it needs. The `fastcuda build` arguments (ARGN) go to
# <graph_dir>/build-args. What changes the objects but not their commands,
# the toolchain's environment (CPATH, NVCC_APPEND_FLAGS...) and the programs
# the last generation recorded (a host compiler switched behind its path),
# is checked by the one edge that runs in every build, fastcuda_toolchain,
# whose stamp every CUDA object depends on (restat: rewritten only when it
# changed).
function(_fastcuda_add_launcher_graph targets tool graph_dir)
  _fastcuda_shell_words(words ${ARGN})
  set(file "${graph_dir}/build-args")
  set(written "")
  if(EXISTS "${file}")
    file(READ "${file}" written)
  endif()
  if(NOT written STREQUAL "${words}\n")
    file(WRITE "${file}" "${words}\n")
  endif()
  set(stamp "${graph_dir}/toolchain.key")
  add_custom_target(fastcuda_toolchain
    COMMAND "${tool}" toolchain-stamp "${stamp}" "${graph_dir}/toolchain-programs.json"
    BYPRODUCTS "${stamp}"
    COMMENT "FastCuda: checking the CUDA toolchain's environment"
    VERBATIM)
  if(TARGET fastcuda)
    add_dependencies(fastcuda_toolchain fastcuda)
  endif()
  foreach(target IN LISTS targets)
    add_dependencies("${target}" fastcuda_toolchain)
  endforeach()
  _fastcuda_object_depends("${targets}" "${stamp}")
  _fastcuda_set_launchers("${targets}" "${tool};--build-graph;${graph_dir}")
endfunction()

# Runs once the top-level directory is configured: every target exists.
function(_fastcuda_finalize)
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if(NOT FASTCUDA_ENABLE OR NOT "CUDA" IN_LIST languages)
    return()
  endif()
  _fastcuda_find_executable(tool)
  if(NOT tool)
    message(FATAL_ERROR
      "FastCuda: the fastcuda tool was not found. Build it (see the FastCuda "
      "README), put it on PATH, or set FASTCUDA_EXECUTABLE; or configure with "
      "-DFASTCUDA_ENABLE=OFF.")
  endif()
  set(graph_dir "${CMAKE_BINARY_DIR}/fastcuda")
  set(build_args --compdb "${CMAKE_BINARY_DIR}/compile_commands.json" --out "${graph_dir}" -j "${FASTCUDA_JOBS}")
  set(launcher_builds OFF)
  if(CMAKE_GENERATOR MATCHES "^Ninja")
    set(launcher_builds ON)
    list(APPEND build_args --launcher-builds)
  else()
    # make reads each object's headers from the depfile its rule asks nvcc
    # for, which the graph writes as it builds the object before that rule;
    # make, finding the object built, prints no line for it: the graph does.
    list(APPEND build_args --launcher-records --object-depfiles --object-lines)
  endif()
  if(NOT FASTCUDA_MODULE_ID STREQUAL "")
    list(APPEND build_args --module-id "${FASTCUDA_MODULE_ID}")
  endif()
  if(NOT FASTCUDA_SPLIT_COMPILE STREQUAL "")
    list(APPEND build_args --split-compile "${FASTCUDA_SPLIT_COMPILE}")
  endif()
  if(NOT FASTCUDA_EARLY_HOST STREQUAL "")
    list(APPEND build_args --early-host "${FASTCUDA_EARLY_HOST}")
  endif()
  if(NOT FASTCUDA_REMOTE STREQUAL "")
    list(APPEND build_args --remote "${FASTCUDA_REMOTE}")
  endif()

  _fastcuda_cuda_targets(targets "${CMAKE_SOURCE_DIR}")
  set(graph_targets "")
  foreach(target IN LISTS targets)
    get_target_property(excluded "${target}" FASTCUDA_EXCLUDED)
    get_target_property(binary_dir "${target}" BINARY_DIR)
    get_target_property(user_launcher "${target}" CUDA_COMPILER_LAUNCHER)
    if(excluded)
      list(APPEND build_args --exclude "${binary_dir}/CMakeFiles/${target}.dir/")
    else()
      list(APPEND graph_targets "${target}")
      if(user_launcher)
        _fastcuda_shell_words(words ${user_launcher})
        list(APPEND build_args --launcher-for "${binary_dir}/CMakeFiles/${target}.dir/" "${words}")
      endif()
    endif()
  endforeach()
  if(NOT graph_targets)
    return()
  endif()

  if(CMAKE_BINARY_DIR MATCHES "#")
    # CMake refuses any custom target in such a build directory ("OUTPUT
    # containing a "#" is not allowed"): no graph, the launcher splits each TU.
    message(STATUS "FastCuda: the build directory's path holds '#', where CMake "
                   "cannot add the graph's targets; each CUDA TU is split by the launcher alone")
    _fastcuda_set_launchers("${graph_targets}" "${tool}")
  elseif(launcher_builds)
    _fastcuda_add_launcher_graph("${graph_targets}" "${tool}" "${graph_dir}" ${build_args})
  else()
    _fastcuda_add_graph_target("${graph_targets}" "${tool}" "${graph_dir}" ${build_args})
  endif()
endfunction()

if(FASTCUDA_ENABLE)
  set(CMAKE_EXPORT_COMPILE_COMMANDS ON)
  cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" ID fastcuda_finalize
                 CALL _fastcuda_finalize)
endif()

cmake_policy(POP)
