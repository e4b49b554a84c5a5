cmake_minimum_required(VERSION 3.25)

# Writes the files generated from the built executable's --help texts: the bash completion
# (always) and one man page per command and subcommand with help2man (when HELP2MAN is set).
# Invoked at build time, after hsalit is linked:
#   cmake -DHSALIT=exe -DVERSION=x.y.z -DTARGETS_JSON=... -DMAPPINGS_DIR=... -DCOMPLETION=file
#         -DMAN_DIR=dir [-DHELP2MAN=help2man] -DWORK_DIR=dir -P this
# The subcommands and their options are read from the help texts, so both stay in step with
# the command line; targets come from codegen/targets.json, tables from codegen/mappings/.

# `hsalit WORDS --help`, its lines in `out_var` (semicolons, which CMake lists cannot hold,
# turned into commas: the texts are only searched for names).
function(help_lines out_var)
  execute_process(COMMAND "${HSALIT}" ${ARGN} --help OUTPUT_VARIABLE text RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "hsalit ${ARGN} --help failed (${status})")
  endif()
  string(REPLACE ";" "," text "${text}")
  string(REPLACE "\n" ";" text "${text}")
  set(${out_var} "${text}" PARENT_SCOPE)
endfunction()

# The names listed under "Subcommands:" and the long and short option names under "Options:".
function(parse_help lines subcommands_var options_var)
  set(section "")
  set(subcommands "")
  set(options "")
  foreach(line IN LISTS lines)
    if(line MATCHES "^([A-Za-z]+):$")
      set(section "${CMAKE_MATCH_1}")
    elseif(section STREQUAL "Subcommands" AND line MATCHES "^  ([a-z][a-z0-9-]*)( |$)")
      list(APPEND subcommands "${CMAKE_MATCH_1}")
    elseif(section STREQUAL "Options" AND line MATCHES "^  (-[-A-Za-z0-9,]+)")
      string(REPLACE "," ";" names "${CMAKE_MATCH_1}")
      list(APPEND options ${names})
    endif()
  endforeach()
  set(${subcommands_var} "${subcommands}" PARENT_SCOPE)
  set(${options_var} "${options}" PARENT_SCOPE)
endfunction()

set(subcommand_cases "")
set(option_cases "")
set(man_pages "")
# Walks the command tree from `hsalit WORDS`: completion cases and, with help2man, man pages.
function(visit)
  help_lines(lines ${ARGN})
  parse_help("${lines}" subcommands options)
  string(REPLACE ";" " " path "${ARGN}")
  string(REPLACE ";" " " subcommand_words "${subcommands}")
  string(REPLACE ";" " " option_words "${options}")
  if(subcommands)
    string(APPEND subcommand_cases "    \"${path}\") echo \"${subcommand_words}\" ;;\n")
  endif()
  string(APPEND option_cases "    \"${path}\") echo \"${option_words}\" ;;\n")
  if(HELP2MAN)
    man_page("${lines}" ${ARGN})
  endif()
  set(subcommand_cases "${subcommand_cases}" PARENT_SCOPE)
  set(option_cases "${option_cases}" PARENT_SCOPE)
  foreach(sub IN LISTS subcommands)
    visit(${ARGN} ${sub})
    set(subcommand_cases "${subcommand_cases}" PARENT_SCOPE)
    set(option_cases "${option_cases}" PARENT_SCOPE)
  endforeach()
endfunction()

# hsalit.1, hsalit-check.1, hsalit-results-merge.1, ...: help2man runs a wrapper named after
# the page that calls `hsalit WORDS` as `hsalit` (so the usage lines name no build path).
function(man_page lines)
  list(JOIN ARGN "-" suffix)
  set(name "hsalit")
  if(suffix)
    set(name "hsalit-${suffix}")
  endif()
  list(GET lines 0 description)  # the first line of every help text says what it does
  string(REGEX REPLACE "^hsalit: " "" description "${description}")
  set(wrapper "${WORK_DIR}/${name}")
  string(REPLACE ";" " " words "${ARGN}")
  file(WRITE "${wrapper}" "#!/bin/bash\nexec -a hsalit '${HSALIT}' ${words} \"$@\"\n")
  file(CHMOD "${wrapper}" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ
       WORLD_EXECUTE)
  execute_process(
    COMMAND "${HELP2MAN}" --no-info "--include=${WORK_DIR}/see-also.h2m" --no-discard-stderr "--version-string=${VERSION}" "--name=${description}"
            --section=1 "--output=${MAN_DIR}/${name}.1" "${wrapper}"
    RESULT_VARIABLE status ERROR_VARIABLE error)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "help2man failed for ${name}: ${error}")
  endif()
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
if(HELP2MAN)
  file(REMOVE_RECURSE "${MAN_DIR}")
  file(MAKE_DIRECTORY "${MAN_DIR}")
  file(WRITE "${WORK_DIR}/see-also.h2m" "[SEE ALSO]
.BR hsalit (1),
.BR hsalit-campaign (1),
.BR hsalit-doctor (1).
The full documentation, README.md and docs/, is in share/doc/hsalit/ under the installation
prefix (/usr/share/doc/hsalit/ for the Debian package).
")
endif()
visit()

file(READ "${TARGETS_JSON}" targets_text)
string(JSON target_count LENGTH "${targets_text}" targets)
set(targets "")
math(EXPR last "${target_count} - 1")
foreach(i RANGE ${last})
  string(JSON target MEMBER "${targets_text}" targets ${i})
  list(APPEND targets "${target}")
endforeach()
string(REPLACE ";" " " targets "${targets}")
file(GLOB table_files RELATIVE "${MAPPINGS_DIR}" "${MAPPINGS_DIR}/*.json")
list(TRANSFORM table_files REPLACE "\\.json$" "")
list(SORT table_files)
string(REPLACE ";" " " tables "${table_files}")

configure_file("${CMAKE_CURRENT_LIST_DIR}/hsalit-completion.bash.in" "${COMPLETION}" @ONLY)
