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
* adds a custom target ``fastcuda_graph`` that runs
  ``fastcuda build --compdb compile_commands.json --out <build>/fastcuda``
  in the console pool, so its progress is visible: every sub-step of every
  CUDA TU of the project in one Ninja graph,
* makes every target with CUDA sources depend on ``fastcuda_graph`` and
  sets its ``CUDA_COMPILER_LAUNCHER`` to ``fastcuda --graph <build>/fastcuda``
  followed by any launcher the target already had (``ccache``, ``sccache``).
  The graph runs that launcher on the steps its tool supports (the host
  compile; with ``sccache`` also ``cicc`` and ``ptxas``), through
  ``--launcher-for``, since CMake leaves launchers out of
  ``compile_commands.json``. When CMake's own rule for an
  object runs, the launcher finds the object the graph built from the same
  command, checks that nothing it depends on is newer, writes the depfile
  CMake asked for and returns at once; otherwise it builds the TU itself.
  It never keeps a stale object.

CMake allows no custom target in a build directory whose path holds ``#``;
there the launcher (``fastcuda`` without ``--graph``) splits each TU alone.

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

  Parallel sub-steps of the graph; ``0`` (the default) means one per core.

.. variable:: FASTCUDA_MODULE_ID

  ``nvcc`` (the default: cudafe++ makes the module id, objects match nvcc's)
  or ``own`` (FastCuda writes it, so cicc need not wait for cudafe++). Empty
  takes the ``FASTCUDA_MODULE_ID`` environment variable of the build.

.. variable:: FASTCUDA_SPLIT_COMPILE

  ``off`` (the default), ``auto`` or a thread count for cicc and ptxas. Empty
  takes the ``FASTCUDA_SPLIT_COMPILE`` environment variable of the build. See
  the README for what both modes change in the objects.

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
set(FASTCUDA_JOBS 0 CACHE STRING "Parallel sub-steps of the FastCuda graph (0: one per core)")
set(FASTCUDA_MODULE_ID "" CACHE STRING "Module ids: nvcc or own (empty: the environment's)")
set(FASTCUDA_SPLIT_COMPILE "" CACHE STRING "Threads for cicc and ptxas: off, auto or N (empty: the environment's)")
set(FASTCUDA_EARLY_HOST "" CACHE STRING "Host compiles before the device code: on or off (empty: the environment's)")
mark_as_advanced(FASTCUDA_EXECUTABLE FASTCUDA_MODULE_ID FASTCUDA_SPLIT_COMPILE FASTCUDA_EARLY_HOST)

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

# Appends to <out_var> the targets of <dir> and its subdirectories that
# compile CUDA sources.
function(_fastcuda_cuda_targets out_var dir)
  set(found "${${out_var}}")
  get_property(targets DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
  foreach(target IN LISTS targets)
    get_target_property(type "${target}" TYPE)
    if(type MATCHES "^(STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY|OBJECT_LIBRARY|EXECUTABLE)$")
      get_target_property(sources "${target}" SOURCES)
      foreach(source IN LISTS sources)
        get_source_file_property(language "${source}" TARGET_DIRECTORY "${target}" LANGUAGE)
        if(source MATCHES "\\.cu$" OR language STREQUAL "CUDA")
          list(APPEND found "${target}")
          break()
        endif()
      endforeach()
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

# Builds <targets> through one graph: the target fastcuda_graph runs the
# command (ARGN) that builds every sub-step into <graph_dir>; each target's
# launcher then finds its objects built there.
function(_fastcuda_add_graph targets tool graph_dir)
  add_custom_target(fastcuda_graph
    COMMAND ${ARGN}
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
  set(command "${tool}" build --compdb "${CMAKE_BINARY_DIR}/compile_commands.json"
              --out "${graph_dir}" -j "${FASTCUDA_JOBS}" --launcher-records)
  if(NOT FASTCUDA_MODULE_ID STREQUAL "")
    list(APPEND command --module-id "${FASTCUDA_MODULE_ID}")
  endif()
  if(NOT FASTCUDA_SPLIT_COMPILE STREQUAL "")
    list(APPEND command --split-compile "${FASTCUDA_SPLIT_COMPILE}")
  endif()
  if(NOT FASTCUDA_EARLY_HOST STREQUAL "")
    list(APPEND command --early-host "${FASTCUDA_EARLY_HOST}")
  endif()
  get_property(multi_config GLOBAL PROPERTY GENERATOR_IS_MULTI_CONFIG)
  if(multi_config)
    # The database holds every configuration's objects: build the one being built.
    list(APPEND command --only ".dir/$<CONFIG>/")
  endif()

  _fastcuda_cuda_targets(targets "${CMAKE_SOURCE_DIR}")
  set(graph_targets "")
  foreach(target IN LISTS targets)
    get_target_property(excluded "${target}" FASTCUDA_EXCLUDED)
    get_target_property(binary_dir "${target}" BINARY_DIR)
    get_target_property(user_launcher "${target}" CUDA_COMPILER_LAUNCHER)
    if(excluded)
      list(APPEND command --exclude "${binary_dir}/CMakeFiles/${target}.dir/")
    else()
      list(APPEND graph_targets "${target}")
      if(user_launcher)
        _fastcuda_shell_words(words ${user_launcher})
        list(APPEND command --launcher-for "${binary_dir}/CMakeFiles/${target}.dir/" "${words}")
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
                   "cannot add the graph's target; each CUDA TU is split by the launcher alone")
    _fastcuda_set_launchers("${graph_targets}" "${tool}")
    return()
  endif()
  _fastcuda_add_graph("${graph_targets}" "${tool}" "${graph_dir}" ${command})
endfunction()

if(FASTCUDA_ENABLE)
  set(CMAKE_EXPORT_COMPILE_COMMANDS ON)
  cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" ID fastcuda_finalize
                 CALL _fastcuda_finalize)
endif()

cmake_policy(POP)
