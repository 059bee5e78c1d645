#!/usr/bin/env bash
# Runs every check proftop has: formatting, go vet, the tests with the race
# detector, and every fuzz target for a bounded time (FUZZTIME, default 20s).
set -euo pipefail
cd "$(dirname "$0")"

fuzztime=${FUZZTIME:-20s}

echo "== gofmt"
unformatted=$(gofmt -l $(find . -name '*.go' -not -path './dist/*'))
if [ -n "$unformatted" ]; then
	echo "gofmt would change:"
	echo "$unformatted"
	exit 1
fi

echo "== go mod tidy"
if ! tidy=$(go mod tidy -diff 2>&1); then
	echo "go.mod or go.sum is not tidy (run go mod tidy):"
	echo "$tidy"
	exit 1
fi

echo "== go vet"
go vet ./...

echo "== the committed agent jar is what its sources build"
(cd agent && go run ./internal/jarbuild -src java -out proftop-agent.jar -check)

echo "== go test -race"
# The agent's tests run real JVMs (Tomcat, H2, JDK 17 and 25) for many
# minutes under the race detector: more than go test's default 10 minutes.
go test -race -count=1 -timeout 45m ./...

# fuzz_once PKG TARGET runs one fuzz target for $fuzztime. Go 1.26's fuzzing
# coordinator can report "context deadline exceeded" when the time runs out
# while a worker is mid-call (golang/go#75804, fixed in Go 1.27): that one
# failure, with no failing input written, is retried, up to twice (it came
# once in two of twelve targets in one run on a loaded machine). Anything
# else, or a third such failure in a row, fails the run.
# files_in DIR counts the files in DIR, 0 when there is none.
files_in() {
	if [ -d "$1" ]; then
		find "$1" -type f | wc -l
	else
		echo 0
	fi
}

fuzz_once() {
	local pkg=$1 target=$2 corpus out status
	corpus="$pkg/testdata/fuzz/$target"
	for attempt in 1 2 3; do
		local before
		before=$(files_in "$corpus")
		set +e
		# A new input is minimized for at most a second: Go's default, a
		# minute, spent the whole time minimizing the first input the
		# mutations of a large seed found (FuzzApply ran five inputs in 20s).
		out=$(go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" -fuzzminimizetime 1s "$pkg" 2>&1)
		status=$?
		set -e
		echo "$out"
		[ $status -eq 0 ] && return 0
		local after
		after=$(files_in "$corpus")
		if [ "$attempt" -lt 3 ] && [ "$before" -eq "$after" ] &&
			[ "$(grep -c '^    ' <<<"$out")" -eq 1 ] &&
			grep -qx '    context deadline exceeded' <<<"$out"; then
			echo "-- $target: Go's fuzzing coordinator stopped with its deadline race (golang/go#75804), no failing input; once more"
			continue
		fi
		return $status
	done
}

echo "== fuzz targets, $fuzztime each"
grep -rl --include='*_test.go' '^func Fuzz' . | sort | while read -r file; do
	pkg=./$(dirname "${file#./}")
	for target in $(grep -o '^func Fuzz[A-Za-z0-9_]*' "$file" | cut -d' ' -f2); do
		echo "-- $pkg $target"
		fuzz_once "$pkg" "$target"
	done
done

echo "== all checks passed"
