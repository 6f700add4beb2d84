# raw_link_statically(<imported target>...)
#
# Points each given imported target, and every imported target it links
# (INTERFACE_LINK_LIBRARIES, transitively), at the static archive installed
# beside its shared object: libfoo.so.N -> libfoo.a. A target without an
# archive beside it stays shared, and so do the targets named in
# RAW_SHARED_ONLY: OpenSSL (its archives are not meant for static linking)
# and zlib (Debian wants it shared; libcurl loads it anyway).
#
# Why: a program linked against gRPC, protobuf and abseil as shared objects
# maps about ninety libraries at start (most of `raw --version`'s time is
# the dynamic loader and the page faults of their relocations) and keeps
# their code resident. Linking them in keeps only the code that is used.
#
# All or nothing per library family: abseil must never be both linked in and
# loaded from a shared object (two copies of its globals), so the walk covers
# every target the roots reach.
set(RAW_SHARED_ONLY OpenSSL::SSL OpenSSL::Crypto ZLIB::ZLIB)
# "-lNAME" items that stay as they are: the C and C++ runtimes' own
# libraries, and those of RAW_SHARED_ONLY.
set(_raw_shared_names c m dl rt pthread atomic gcc gcc_s stdc++ ssl crypto z)

function(_raw_static_archive_of location out)
  set(${out} "" PARENT_SCOPE)
  if(location MATCHES "^(.*)/lib([^/]+)\\.so(\\.[0-9.]+)?$")
    set(archive "${CMAKE_MATCH_1}/lib${CMAKE_MATCH_2}.a")
    if(EXISTS "${archive}")
      set(${out} "${archive}" PARENT_SCOPE)
    endif()
  endif()
endfunction()

# A library named by path (as pkg-config targets name theirs) becomes an
# imported target of its own, so that CMake knows who links it and places it
# after every user on the link line rather than only after the first.
function(_raw_archive_target archive out)
  get_filename_component(name "${archive}" NAME_WE)
  set(target "raw_archive_${name}")
  if(NOT TARGET ${target})
    add_library(${target} STATIC IMPORTED GLOBAL)
    set_target_properties(${target} PROPERTIES IMPORTED_LOCATION "${archive}")
  endif()
  set(${out} ${target} PARENT_SCOPE)
endfunction()

function(raw_link_statically)
  set(pending ${ARGN})
  set(seen)
  while(pending)
    list(POP_FRONT pending target)
    if(NOT TARGET ${target} OR target IN_LIST seen OR target IN_LIST RAW_SHARED_ONLY)
      continue()
    endif()
    list(APPEND seen ${target})
    get_target_property(imported ${target} IMPORTED)
    if(NOT imported)
      continue()
    endif()
    get_target_property(type ${target} TYPE)
    if(type STREQUAL "SHARED_LIBRARY" OR type STREQUAL "UNKNOWN_LIBRARY")
      foreach(property IMPORTED_LOCATION IMPORTED_LOCATION_NONE IMPORTED_LOCATION_RELEASE
                       IMPORTED_LOCATION_RELWITHDEBINFO IMPORTED_LOCATION_DEBUG)
        get_target_property(location ${target} ${property})
        if(location)
          _raw_static_archive_of("${location}" archive)
          if(archive)
            set_target_properties(${target} PROPERTIES ${property} "${archive}")
          endif()
        endif()
      endforeach()
    endif()
    # pkg-config targets list their libraries here rather than as a location.
    get_target_property(links ${target} INTERFACE_LINK_LIBRARIES)
    if(links)
      set(rewritten)
      foreach(item IN LISTS links)
        if(NOT TARGET "${item}" AND item MATCHES "\\.so(\\.[0-9.]+)?$")
          _raw_static_archive_of("${item}" archive)
          if(archive)
            _raw_archive_target("${archive}" item)
          endif()
        elseif(item MATCHES "^-l(.+)$" AND NOT CMAKE_MATCH_1 IN_LIST _raw_shared_names)
          unset(found)
          find_library(found NAMES "lib${CMAKE_MATCH_1}.a" NO_CACHE)
          if(found)
            _raw_archive_target("${found}" item)
          endif()
        endif()
        list(APPEND rewritten "${item}")
      endforeach()
      set_target_properties(${target} PROPERTIES INTERFACE_LINK_LIBRARIES "${rewritten}")
      list(APPEND pending ${links})
    endif()
  endwhile()
endfunction()
