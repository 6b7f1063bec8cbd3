// The canonical key of a call (RULES B1, B2), for RunParallelCalls.

package main

// Key is name + "(" + Python's json.dumps(args, sort_keys=True) + ")": keys sorted at every
// depth, ", " and ": " between members, everything outside printable ASCII escaped, 1 and
// 1.0 apart, floats as Python's repr. nil args are {}. It panics only on a value JSON cannot
// hold, which no call parcall sends contains.
func Key(name string, args map[string]any) string {
	text, err := dumps(args)
	if err != nil {
		panic(err)
	}
	return name + "(" + text + ")"
}
