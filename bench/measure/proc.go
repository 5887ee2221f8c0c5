// Package measure holds what the benchmark driver needs to turn a bounded load on a shared
// machine into figures that can be compared: CPU time of the processes under test read from
// /proc (so that the cost per request stays meaningful while the load generator and other
// tenants share the cores), a guard that waits for the machine to settle before each load,
// the parsers of wrk, pgbench and `go test -bench` output, and the report.
package measure

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// userHZ is the unit of the CPU times in /proc. The kernel fixes it at 100 for user space
// on every architecture Go runs Linux on, whatever its internal tick rate.
const userHZ = 100

func ticks(n int64) time.Duration { return time.Duration(n) * time.Second / userHZ }

// ProcCPU is the user and system CPU time a process has used so far, all threads together.
func ProcCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name may hold spaces and parentheses: fields start after the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no command field", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	s, err2 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	return ticks(u + s), nil
}

// MachineCPU is the busy CPU time of all cores since boot: everything but idle and I/O wait.
func MachineCPU() (time.Duration, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 8 || f[0] != "cpu" {
		return 0, errors.New("/proc/stat: no cpu line")
	}
	var busy int64
	// user nice system idle iowait irq softirq steal ...
	for i, v := range f[1:9] {
		if i == 3 || i == 4 {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/stat: %w", err)
		}
		busy += n
	}
	return ticks(busy), nil
}

// LoadAvg is the one-minute load average.
func LoadAvg() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return -1
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return -1
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}

// ProcStatus reads a "<Key>: <n> kB" line of /proc/<pid>/status (VmRSS, VmHWM) in bytes.
func ProcStatus(pid int, key string) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, key+":"); ok {
			f := strings.Fields(v)
			if len(f) == 0 {
				break
			}
			n, err := strconv.ParseInt(f[0], 10, 64)
			if err != nil {
				return 0, err
			}
			return n << 10, nil
		}
	}
	return 0, fmt.Errorf("/proc/%d/status: no %s", pid, key)
}

// PIDsMatching lists the processes whose command line (arguments joined by spaces) match.
// Postgres backends name their database in it ("postgres: 15/main: postgres <db>
// 127.0.0.1(…) idle"), which is how the CPU of the backends serving one benchmark database
// is found.
func PIDsMatching(match func(cmdline string) bool) []int {
	dirs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	var out []int
	for _, d := range dirs {
		b, err := os.ReadFile(d)
		if err != nil || !match(string(bytes.ReplaceAll(bytes.TrimRight(b, "\x00"), []byte{0}, []byte{' '}))) {
			continue
		}
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(d)))
		if err == nil {
			out = append(out, pid)
		}
	}
	return out
}

// ProcessTree lists a process and all its descendants, found by the parent of every process
// in /proc: a server that forks workers (nginx's master and its worker processes) is
// measured whole.
func ProcessTree(root int) []int {
	dirs, _ := filepath.Glob("/proc/[0-9]*/stat")
	children := map[int][]int{}
	for _, d := range dirs {
		pid, ppid, err := parentOf(d)
		if err == nil {
			children[ppid] = append(children[ppid], pid)
		}
	}
	out := []int{root}
	for i := 0; i < len(out); i++ {
		out = append(out, children[out[i]]...)
	}
	return out
}

// parentOf reads the pid and the parent's pid from a /proc/<pid>/stat file.
func parentOf(statPath string) (pid, ppid int, err error) {
	b, err := os.ReadFile(statPath)
	if err != nil {
		return 0, 0, err
	}
	i := bytes.LastIndexByte(b, ')')
	f := strings.Fields(string(b[i+1:]))
	if i < 0 || len(f) < 2 {
		return 0, 0, fmt.Errorf("%s: no parent field", statPath)
	}
	if pid, err = strconv.Atoi(filepath.Base(filepath.Dir(statPath))); err != nil {
		return 0, 0, err
	}
	ppid, err = strconv.Atoi(f[1]) // state, then ppid
	return pid, ppid, err
}

// CPUMeter sums the CPU time processes use between Start and Stop. Processes that come and
// go during the load (the backends pgbench opens) are polled, and the last reading of each
// is kept: a process that exits takes its CPU time out of /proc with it.
type CPUMeter struct {
	pids  func() []int
	first map[int]time.Duration
	last  map[int]time.Duration
	done  chan struct{}
	ended chan struct{}
}

// NewCPUMeter measures the processes pids returns, asked again on every poll.
func NewCPUMeter(pids func() []int) *CPUMeter {
	return &CPUMeter{pids: pids, first: map[int]time.Duration{}, last: map[int]time.Duration{}}
}

// StaticPIDs is a pid list for NewCPUMeter.
func StaticPIDs(pids ...int) func() []int { return func() []int { return pids } }

func (m *CPUMeter) read(initial bool) {
	for _, pid := range m.pids() {
		t, err := ProcCPU(pid)
		if err != nil {
			continue
		}
		if _, seen := m.first[pid]; !seen {
			if initial {
				m.first[pid] = t
			} else {
				m.first[pid] = 0 // started during the load: all of its time is the load's
			}
		}
		m.last[pid] = t
	}
}

// Start takes the first reading and polls every interval until Stop.
func (m *CPUMeter) Start(interval time.Duration) {
	m.read(true)
	m.done, m.ended = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(m.ended)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-m.done:
				return
			case <-t.C:
				m.read(false)
			}
		}
	}()
}

// Stop takes the last reading and returns the CPU time used since Start.
func (m *CPUMeter) Stop() time.Duration {
	close(m.done)
	<-m.ended
	m.read(false)
	var sum time.Duration
	for pid, t := range m.last {
		sum += t - m.first[pid]
	}
	return sum
}
