package dashboard

import (
	"fmt"
	"html/template"
	"strings"
	"time"
)

// Chart geometry, in the SVG's own units; it scales to the page's width.
const (
	chartW, chartH  = 720, 220
	chartLeft       = 48
	chartBottom     = 28
	chartTop        = 12
	chartLabelEvery = 5
)

// chart draws the verifications per day as an SVG bar chart, on the server: it needs no
// script, reads at a glance, and carries a text label for screen readers, with a title
// per bar.
func chart(days []dayRow, t func(string) string, month, lang string) template.HTML {
	var top int64
	for _, d := range days {
		top = max(top, d.Verifications)
	}
	scale := niceCeil(top)
	plotW := float64(chartW - chartLeft - 8)
	plotH := float64(chartH - chartTop - chartBottom)
	slot := plotW / float64(len(days))
	esc := template.HTMLEscapeString
	var b strings.Builder
	label := fmt.Sprintf(t("usage.chartlabel"), month, formatNumber(top, lang))
	fmt.Fprintf(&b, `<svg class="chart" viewBox="0 0 %d %d" role="img" aria-label="%s">`, chartW, chartH, esc(label))
	lines := gridLines(scale)
	for i := int64(0); i <= lines; i++ {
		v := scale * i / lines
		y := float64(chartTop) + plotH - plotH*float64(i)/float64(lines)
		fmt.Fprintf(&b, `<line class="grid" x1="%d" x2="%d" y1="%.1f" y2="%.1f"/>`, chartLeft, chartW-8, y, y)
		fmt.Fprintf(&b, `<text class="axis" x="%d" y="%.1f" text-anchor="end">%s</text>`, chartLeft-6, y+4, esc(formatNumber(v, lang)))
	}
	for i, d := range days {
		x := float64(chartLeft) + slot*float64(i) + slot*0.15
		h := 0.0
		if scale > 0 {
			h = plotH * float64(d.Verifications) / float64(scale)
		}
		y := float64(chartTop) + plotH - h
		day, _ := time.Parse(time.DateOnly, d.Day)
		title := fmt.Sprintf("%s: %s %s", formatDate(day, lang, false), formatNumber(d.Verifications, lang), t("usage.verifications"))
		fmt.Fprintf(&b, `<rect class="bar" x="%.1f" y="%.1f" width="%.1f" height="%.1f"><title>%s</title></rect>`,
			x, y, slot*0.7, max(h, 0.5), esc(title))
		if (i+1)%chartLabelEvery == 0 || i == 0 {
			fmt.Fprintf(&b, `<text class="axis" x="%.1f" y="%d" text-anchor="middle">%d</text>`, x+slot*0.35, chartH-8, i+1)
		}
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) // every text in it is escaped above
}

// niceCeil rounds a chart's top up to 1, 2 or 5 times a power of ten (at least 5), so
// that the grid lines fall on round numbers.
func niceCeil(n int64) int64 {
	if n <= 5 {
		return 5
	}
	p := int64(1)
	for p*10 < n {
		p *= 10
	}
	for _, m := range []int64{1, 2, 5} {
		if m*p >= n {
			return m * p
		}
	}
	return 10 * p
}

// gridLines divides a top from niceCeil into whole steps: fifths of 5, 10, 50..., quarters
// of 20, 200...
func gridLines(top int64) int64 {
	if top%5 == 0 {
		return 5
	}
	return 4
}
