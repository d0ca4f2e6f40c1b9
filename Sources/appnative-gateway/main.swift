import AppNativeGatewayCLI

// The executable holds no logic: everything, including the exit code, comes from the gateway's CLI.
CommandLineTool.main()
