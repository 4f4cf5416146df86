# make test's test runner: per-package lines, and a summary with the counts
# and the names of skipped and failed tests (scripts/test.sh).
go_tool gotestsum gotest.tools/gotestsum@v1.13.0
