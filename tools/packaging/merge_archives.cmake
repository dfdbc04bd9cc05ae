# Runs `ar -M` on the MRI script MRI (which creates, fills and saves the archive).
execute_process(COMMAND "${AR}" -M INPUT_FILE "${MRI}" RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "ar -M < ${MRI} failed: ${result}")
endif()
