# SPDX-License-Identifier: MIT
# Embeds every text file under data/ into a C source file as a table of
# {relative path, bytes, length}, so the binary carries its knowledge base and
# `--tables DIR` can replace any file of it by the same relative path.
function(mfstat_embed_data DATA_DIR OUT_FILE)
  file(GLOB_RECURSE _files RELATIVE ${DATA_DIR} CONFIGURE_DEPENDS ${DATA_DIR}/*.tsv ${DATA_DIR}/*.txt ${DATA_DIR}/*.sql)
  list(SORT _files)
  set(_deps)
  foreach(_f ${_files})
    list(APPEND _deps ${DATA_DIR}/${_f})
  endforeach()
  add_custom_command(
    OUTPUT ${OUT_FILE}
    COMMAND ${CMAKE_COMMAND} -DDATA_DIR=${DATA_DIR} -DOUT_FILE=${OUT_FILE}
            -P ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/EmbedDataScript.cmake
    DEPENDS ${_deps} ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/EmbedDataScript.cmake
    COMMENT "Embedding data/ knowledge base"
    VERBATIM)
endfunction()
