package receipt

import "time"

// TimeLayout is the one spelling of a receipt time: RFC 3339 in UTC with
// exactly millisecond precision. One spelling per instant keeps bodies, and so
// receipt ids, reproducible under a fixed clock.
const TimeLayout = "2006-01-02T15:04:05.000Z"

// FormatTime renders t in TimeLayout, truncating below the millisecond.
func FormatTime(t time.Time) string {
	return t.UTC().Truncate(time.Millisecond).Format(TimeLayout)
}

// parseTime accepts only strings FormatTime could have produced.
func parseTime(s string) (time.Time, bool) {
	t, err := time.Parse(TimeLayout, s)
	if err != nil || t.Format(TimeLayout) != s {
		return time.Time{}, false
	}
	return t, true
}
