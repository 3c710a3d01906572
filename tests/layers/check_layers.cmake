# Fails when a file of a layer includes a layer above it or beside it (cmake -DSOURCE=<repo> -P).
# The core (dynet_core/) includes only itself; engines, builders and trainers each include only
# the core and themselves, and the CUDA backend (gpu/) the trainers too, for their update rules.
# The public facade above them all, dynet_core/compat/ (the umbrella
# <dybatch.h> and DyNet's header names, an include folder of its own), is no part of a layer and
# is included by no library file but the core's forwarding header kept for old programs.
# The training-program frame, trainers/program (a library of its own, on Boost.Program_options), is
# included by no file of the library proper.
set(allowed_dynet_core dynet_core)
set(allowed_autobatch dynet_core autobatch)
set(allowed_builders dynet_core builders)
set(allowed_trainers dynet_core trainers)
set(allowed_gpu dynet_core trainers gpu)
set(layers dynet_core autobatch builders trainers gpu)
set(umbrella_forwarder dynet_core/dybatch.h)
set(facade dynet_core/compat)
set(program_frame trainers/program)
file(GLOB facade_headers RELATIVE ${SOURCE}/${facade} ${SOURCE}/${facade}/*.h ${SOURCE}/${facade}/dynet/*.h)

set(violations "")
foreach(layer IN LISTS layers)
  file(GLOB_RECURSE files RELATIVE ${SOURCE} ${SOURCE}/${layer}/*.h ${SOURCE}/${layer}/*.cc ${SOURCE}/${layer}/*.cu
       ${SOURCE}/${layer}/*.cuh)
  list(FILTER files EXCLUDE REGEX "^${facade}/")
  foreach(file IN LISTS files)
    file(STRINGS ${SOURCE}/${file} includes REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"]")
    foreach(line IN LISTS includes)
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*[<\"]([^>\"]*)[>\"].*$" "\\1" target "${line}")
      list(FIND facade_headers "${target}" is_facade)
      if(NOT is_facade EQUAL -1 AND NOT file STREQUAL umbrella_forwarder)
        list(APPEND violations "${file}: includes the public facade's ${target}")
      endif()
      if(target MATCHES "^${program_frame}/" AND NOT file MATCHES "^${program_frame}/")
        list(APPEND violations "${file}: includes ${target} (the training-program frame is no part of the library)")
      endif()
      string(REGEX MATCH "^[^/]+" top "${target}")
      list(FIND layers "${top}" is_layer)
      list(FIND allowed_${layer} "${top}" is_allowed)
      if(NOT is_layer EQUAL -1 AND is_allowed EQUAL -1)
        list(APPEND violations "${file}: includes ${target} (${layer}/ may include only: ${allowed_${layer}})")
      endif()
    endforeach()
  endforeach()
endforeach()
if(violations)
  list(JOIN violations "\n  " text)
  message(FATAL_ERROR "layering broken:\n  ${text}")
endif()
message(STATUS "every layer includes only the layers below it")
