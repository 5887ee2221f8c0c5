package measure

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// Guard keeps bounded loads away from other tenants' bursts on a shared machine. Before a
// load it waits, for at most MaxWait, until fewer than Settle cores are busy; during the
// load it measures how much CPU went to processes that are neither the server nor the load
// generator, and repeats a load that shared the machine with more than MaxOther cores of
// them, up to Tries times, keeping the quietest. It never waits without bound: on a machine
// that stays busy the figures are taken anyway, with the load recorded next to them.
type Guard struct {
	Settle   float64
	MaxWait  time.Duration
	MaxOther float64
	Tries    int
	Log      io.Writer
}

// Quiet is the state of the machine just before a load.
type Quiet struct {
	Load1     float64 `json:"load1"`
	BusyCores float64 `json:"busy_cores_before"`
	Waited    float64 `json:"waited_s"`
}

// Wait waits for the machine to settle.
func (g Guard) Wait(ctx context.Context) Quiet {
	const window = time.Second
	start := time.Now()
	var busy float64
	for {
		b0, _ := MachineCPU()
		select {
		case <-ctx.Done():
			return Quiet{Load1: LoadAvg(), BusyCores: busy, Waited: time.Since(start).Seconds()}
		case <-time.After(window):
		}
		b1, _ := MachineCPU()
		busy = (b1 - b0).Seconds() / window.Seconds()
		if busy < g.Settle || time.Since(start) >= g.MaxWait {
			return Quiet{Load1: LoadAvg(), BusyCores: busy, Waited: time.Since(start).Seconds()}
		}
	}
}

// Load is one bounded load to measure.
type Load struct {
	Name string
	// Cmd is the load generator's command line (wrk -d…, pgbench -T…): it must end by itself.
	Cmd []string
	// Server lists the processes whose CPU time is the server side of the load.
	Server func() []int
	// Parse reads the generator's output.
	Parse func(out string) (Stats, error)
	// Before runs before each attempt (to clear pgbench's logs, say).
	Before func() error
}

// Run is a measured load.
type Run struct {
	Name string `json:"name"`
	Cmd  string `json:"cmd"`
	Stats
	// ServerCPU is the CPU seconds the server processes used during the load, and
	// ServerUSPerReq that divided by the requests served: the cost of a request whatever
	// else ran on the machine.
	ServerCPU      float64 `json:"server_cpu_s"`
	ServerUSPerReq float64 `json:"server_cpu_us_per_req"`
	ClientCPU      float64 `json:"client_cpu_s"`
	// OtherCores is the average number of cores busy with anything else (other tenants).
	OtherCores float64 `json:"other_cores"`
	Quiet
	Wall     float64 `json:"wall_s"`
	Attempts int     `json:"attempts"`
}

// Measure runs the load, repeated as the guard says.
func (g Guard) Measure(ctx context.Context, l Load) (Run, error) {
	var best Run
	tries := max(g.Tries, 1)
	for attempt := 1; attempt <= tries; attempt++ {
		r, err := g.once(ctx, l)
		if err != nil {
			return r, err
		}
		if attempt == 1 || r.OtherCores < best.OtherCores {
			best = r
		}
		best.Attempts = attempt
		if r.OtherCores <= g.MaxOther || r.Errors > 0 {
			break
		}
		if g.Log != nil && attempt < tries {
			fmt.Fprintf(g.Log, "  %s: %.2f cores of other work during the load; again\n", l.Name, r.OtherCores)
		}
	}
	return best, nil
}

func (g Guard) once(ctx context.Context, l Load) (Run, error) {
	r := Run{Name: l.Name, Cmd: strings.Join(l.Cmd, " ")}
	if l.Before != nil {
		if err := l.Before(); err != nil {
			return r, err
		}
	}
	r.Quiet = g.Wait(ctx)
	if err := ctx.Err(); err != nil {
		return r, err
	}
	meter := NewCPUMeter(l.Server)
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, l.Cmd[0], l.Cmd[1:]...)
	cmd.Stdout, cmd.Stderr = &out, &out
	m0, _ := MachineCPU()
	meter.Start(250 * time.Millisecond)
	start := time.Now()
	err := cmd.Run()
	r.Wall = time.Since(start).Seconds()
	server := meter.Stop()
	m1, _ := MachineCPU()
	if err != nil {
		return r, fmt.Errorf("%s: %w\n%s", l.Cmd[0], err, tail(out.String(), 2000))
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.ClientCPU = tv(ru.Utime) + tv(ru.Stime)
	}
	st, err := l.Parse(out.String())
	if err != nil {
		return r, fmt.Errorf("%s: %w\n%s", l.Name, err, tail(out.String(), 2000))
	}
	r.Stats = st
	r.ServerCPU = server.Seconds()
	if st.Requests > 0 {
		r.ServerUSPerReq = r.ServerCPU / float64(st.Requests) * 1e6
	}
	r.OtherCores = max(0, ((m1-m0).Seconds()-r.ServerCPU-r.ClientCPU)/r.Wall)
	return r, nil
}

func tv(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }

// RusageOf returns the user+system CPU seconds and the peak resident set in bytes of a
// finished child.
func RusageOf(ps interface{ SysUsage() any }) (cpu float64, maxRSS int64) {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return tv(ru.Utime) + tv(ru.Stime), ru.Maxrss << 10 // Linux reports kilobytes
	}
	return 0, 0
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
