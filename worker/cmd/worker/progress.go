package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/adreswijzer/adreswijzer"
)

// unit says what an importer's phase counts.
type unit uint8

const (
	unitBytes unit = iota
	unitAddresses
)

// progress shows how far an import is on stderr: a bar redrawn in place on a terminal, and
// otherwise (a log file, a CI job) one plain line per tenth of each phase, which reads well
// in a log and tells a watcher the import is alive.
type progress struct {
	w       io.Writer
	country adreswijzer.Country
	tty     bool
	quiet   bool
	start   time.Time

	phase    string
	step     int64     // tenths reported in this phase (plain lines)
	drawn    time.Time // last redraw (terminal)
	lastLine time.Time // last plain line, for phases without a total
	open     bool      // a bar is on the terminal's current line
	// The last report, drawn once more when its phase ends, as redraws are throttled.
	lastDone, lastTotal int64
	lastUnit            unit
}

func newProgress(w io.Writer, c adreswijzer.Country, quiet bool) *progress {
	tty := false
	if f, ok := w.(*os.File); ok {
		tty = term.IsTerminal(int(f.Fd()))
	}
	return &progress{w: w, country: c, tty: tty, quiet: quiet, start: time.Now()}
}

// update takes an importer's report; importers call it a few times a second at most.
func (p *progress) update(phase string, done, total int64, u unit) {
	if p.quiet {
		return
	}
	now := time.Now()
	newPhase := phase != p.phase
	if p.tty && newPhase && p.open {
		p.draw() // the finished phase as it ended
		fmt.Fprint(p.w, "\n")
		p.open = false
	}
	if newPhase {
		p.phase, p.step = phase, -1
	}
	p.lastDone, p.lastTotal, p.lastUnit = done, total, u
	if p.tty {
		if newPhase || now.Sub(p.drawn) >= 100*time.Millisecond || (total > 0 && done >= total) {
			p.drawn = now
			p.draw()
		}
		return
	}
	if total <= 0 {
		if newPhase || now.Sub(p.lastLine) >= 5*time.Second {
			p.lastLine = now
			fmt.Fprintf(p.w, "import %s: %s %s, %s\n", p.country, phase, amount(done, u), p.elapsed())
		}
		return
	}
	tenth := min(done*10/total, 10)
	if tenth > p.step {
		p.step = tenth
		fmt.Fprintf(p.w, "import %s: %s %d%% (%s of %s), %s\n", p.country, phase, tenth*10, amount(done, u), amount(total, u), p.elapsed())
	}
}

// draw redraws the bar of the current phase on the terminal's current line.
func (p *progress) draw() {
	done, total, u := p.lastDone, p.lastTotal, p.lastUnit
	p.open = true
	const width = 30
	line := fmt.Sprintf("import %s: %-10s", p.country, p.phase)
	if total > 0 {
		frac := min(float64(done)/float64(total), 1)
		n := int(frac * width)
		line += fmt.Sprintf(" [%s%s] %3.0f%% %s", strings.Repeat("=", n), strings.Repeat(" ", width-n), frac*100, amount(done, u))
	} else {
		line += " " + amount(done, u)
	}
	fmt.Fprintf(p.w, "\r%s  %s\x1b[K", line, p.elapsed())
}

// commit says the import has been read and the dataset is being built and activated, the
// last and, for Postgres, a long step.
func (p *progress) commit() {
	if p.quiet {
		return
	}
	p.endBar()
	fmt.Fprintf(p.w, "import %s: activating, %s\n", p.country, p.elapsed())
}

// done ends the display before the summary.
func (p *progress) done() { p.endBar() }

// abandon ends the display before an error.
func (p *progress) abandon() { p.endBar() }

func (p *progress) endBar() {
	if p.open {
		p.draw()
		fmt.Fprint(p.w, "\n")
		p.open = false
	}
}

func (p *progress) elapsed() string {
	return fmt.Sprintf("%.1f s", time.Since(p.start).Seconds())
}

func amount(n int64, u unit) string {
	if u == unitAddresses {
		return fmt.Sprintf("%d addresses", n)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}
