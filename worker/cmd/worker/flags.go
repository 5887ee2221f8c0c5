package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// errHelp is -h: the options were printed and nothing else is to be done.
var errHelp = flag.ErrHelp

// usageError is a mistake in the command line.
type usageError string

func (e usageError) Error() string        { return string(e) }
func (e usageError) Is(target error) bool { return target == errUsage }

func usagef(format string, args ...any) error { return usageError(fmt.Sprintf(format, args...)) }

// listFlag collects a repeatable option.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, " ") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// parse parses args allowing options after positional arguments, which it returns, so that
// "--from a.zip b.zip --snapshot x" means what it says: the standard flag package stops at
// the first positional argument.
func parse(fs *flag.FlagSet, args []string, stderr io.Writer) ([]string, error) {
	fs.SetOutput(stderr)
	var rest []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, errHelp
			}
			return nil, usageError(err.Error())
		}
		left := fs.Args()
		if at := len(args) - len(left); at > 0 && args[at-1] == "--" {
			return append(rest, left...), nil // everything after "--" is positional
		}
		if len(left) == 0 {
			return rest, nil
		}
		i := 0
		for i < len(left) && (!strings.HasPrefix(left[i], "-") || left[i] == "-") {
			rest = append(rest, left[i])
			i++
		}
		args = left[i:]
	}
}
