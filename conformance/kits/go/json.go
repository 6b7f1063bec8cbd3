// JSON in the protocol's dialect, which is Python's: NaN and the infinities are literals,
// integers have any number of digits, and 1 and 1.0 are different numbers. encoding/json
// refuses the first and decodes numbers as float64, so the adapter reads and writes JSON
// here. A number is kept as its literal (json.Number); only NaN and the infinities are read
// as float64.

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// parseJSON reads one JSON value in Python's dialect; anything after it but spaces is an error.
func parseJSON(text []byte) (any, error) {
	r := jsonReader{text: text}
	value, err := r.value()
	if err == nil && r.skipSpace() < len(text) {
		err = r.fail("text after the value")
	}
	return value, err
}

type jsonReader struct {
	text []byte
	at   int
}

func (r *jsonReader) fail(what string) error {
	return fmt.Errorf("invalid JSON at byte %d: %s", r.at, what)
}

func (r *jsonReader) skipSpace() int {
	for r.at < len(r.text) && strings.IndexByte(" \t\r\n", r.text[r.at]) >= 0 {
		r.at++
	}
	return r.at
}

func (r *jsonReader) word(word string, value any) (any, error) {
	if !bytes.HasPrefix(r.text[r.at:], []byte(word)) {
		return nil, r.fail("unknown literal")
	}
	r.at += len(word)
	return value, nil
}

func (r *jsonReader) value() (any, error) {
	if r.skipSpace() == len(r.text) {
		return nil, r.fail("end of text where a value was expected")
	}
	switch c := r.text[r.at]; {
	case c == '{':
		return r.object()
	case c == '[':
		return r.array()
	case c == '"':
		return r.string()
	case c == 't':
		return r.word("true", true)
	case c == 'f':
		return r.word("false", false)
	case c == 'n':
		return r.word("null", nil)
	case c == 'N':
		return r.word("NaN", math.NaN())
	case c == 'I':
		return r.word("Infinity", math.Inf(1))
	case c == '-' && r.at+1 < len(r.text) && r.text[r.at+1] == 'I':
		return r.word("-Infinity", math.Inf(-1))
	default:
		return r.number()
	}
}

func (r *jsonReader) object() (any, error) {
	object := map[string]any{}
	r.at++
	if r.skipSpace() < len(r.text) && r.text[r.at] == '}' {
		r.at++
		return object, nil
	}
	for {
		if r.skipSpace() == len(r.text) || r.text[r.at] != '"' {
			return nil, r.fail("expected a string key")
		}
		key, err := r.string()
		if err != nil {
			return nil, err
		}
		if r.skipSpace() == len(r.text) || r.text[r.at] != ':' {
			return nil, r.fail("expected ':'")
		}
		r.at++
		if object[key.(string)], err = r.value(); err != nil {
			return nil, err
		}
		if done, err := r.separator('}'); done || err != nil {
			return object, err
		}
	}
}

func (r *jsonReader) array() (any, error) {
	array := []any{}
	r.at++
	if r.skipSpace() < len(r.text) && r.text[r.at] == ']' {
		r.at++
		return array, nil
	}
	for {
		item, err := r.value()
		if err != nil {
			return nil, err
		}
		array = append(array, item)
		if done, err := r.separator(']'); done || err != nil {
			return array, err
		}
	}
}

// separator reads the ',' between members or the closing bracket; true at the closing one.
func (r *jsonReader) separator(closing byte) (bool, error) {
	if r.skipSpace() == len(r.text) {
		return false, r.fail("unterminated list or object")
	}
	switch r.text[r.at] {
	case ',':
		r.at++
		return false, nil
	case closing:
		r.at++
		return true, nil
	}
	return false, r.fail("expected ',' or a closing bracket")
}

func (r *jsonReader) string() (any, error) {
	var out strings.Builder
	r.at++
	for r.at < len(r.text) {
		c := r.text[r.at]
		switch {
		case c == '"':
			r.at++
			return out.String(), nil
		case c < 0x20:
			return nil, r.fail("control character in a string")
		case c != '\\':
			out.WriteByte(c)
			r.at++
			continue
		}
		if r.at+1 == len(r.text) {
			break
		}
		escape := r.text[r.at+1]
		r.at += 2
		if short := strings.IndexByte(`"\/bfnrt`, escape); short >= 0 {
			out.WriteByte("\"\\/\b\f\n\r\t"[short])
			continue
		}
		if escape != 'u' {
			return nil, r.fail("unknown escape")
		}
		char, err := r.unicodeEscape()
		if err != nil {
			return nil, err
		}
		out.WriteRune(char)
	}
	return nil, r.fail("unterminated string")
}

// unicodeEscape reads the hex digits after `\u`, and the low half of a surrogate pair.
func (r *jsonReader) unicodeEscape() (rune, error) {
	first, err := r.hex4()
	if err != nil || !utf16.IsSurrogate(first) {
		return first, err
	}
	if r.at+2 <= len(r.text) && string(r.text[r.at:r.at+2]) == `\u` {
		r.at += 2
		second, err := r.hex4()
		if err != nil {
			return 0, err
		}
		if pair := utf16.DecodeRune(first, second); pair != utf8.RuneError {
			return pair, nil
		}
	}
	// parcall never sends one: its strings are Unicode scalar values.
	return 0, r.fail("lone surrogate")
}

func (r *jsonReader) hex4() (rune, error) {
	if r.at+4 > len(r.text) {
		return 0, r.fail("short \\u escape")
	}
	code, err := strconv.ParseUint(string(r.text[r.at:r.at+4]), 16, 32)
	if err != nil {
		return 0, r.fail("bad \\u escape")
	}
	r.at += 4
	return rune(code), nil
}

func (r *jsonReader) number() (any, error) {
	start := r.at
	for r.at < len(r.text) && strings.IndexByte("+-0123456789.eE", r.text[r.at]) >= 0 {
		r.at++
	}
	literal := json.Number(r.text[start:r.at])
	if !isNumber(string(literal)) {
		r.at = start
		return nil, r.fail("not a value")
	}
	return literal, nil
}

// isNumber: the JSON grammar of a number, so a json.Number made by hand is checked too.
func isNumber(text string) bool {
	at := 0
	digits := func() int {
		start := at
		for at < len(text) && text[at] >= '0' && text[at] <= '9' {
			at++
		}
		return at - start
	}
	skip := func(chars string) bool {
		if at < len(text) && strings.IndexByte(chars, text[at]) >= 0 {
			at++
			return true
		}
		return false
	}
	skip("-")
	first := at
	if n := digits(); n == 0 || (n > 1 && text[first] == '0') {
		return false
	}
	if skip(".") && digits() == 0 {
		return false
	}
	if skip("eE") {
		skip("+-")
		if digits() == 0 {
			return false
		}
	}
	return at == len(text)
}

// errNotJSON names where a value that JSON cannot hold is.
var errNotJSON = errors.New("not a JSON value")

// dumps writes value as Python's json.dumps(value, sort_keys=True) does: ", " and ": "
// between members, keys sorted by code point (UTF-8 byte order is code point order),
// everything outside printable ASCII escaped, floats as Python's repr. A nil map or slice is
// written as an empty one, as Go reads it. The protocol's messages are written so too.
func dumps(value any) (string, error) {
	var out strings.Builder
	err := writeJSON(&out, reflect.ValueOf(value), "value")
	return out.String(), err
}

func writeJSON(out *strings.Builder, v reflect.Value, path string) error {
	if !v.IsValid() {
		out.WriteString("null")
		return nil
	}
	if number, ok := v.Interface().(json.Number); ok {
		return writeNumber(out, string(number), path)
	}
	if integer, ok := v.Interface().(*big.Int); ok && integer != nil {
		out.WriteString(integer.String())
		return nil
	}
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			out.WriteString("null")
			return nil
		}
		return writeJSON(out, v.Elem(), path)
	case reflect.Bool:
		out.WriteString(map[bool]string{true: "true", false: "false"}[v.Bool()])
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		out.WriteString(strconv.FormatInt(v.Int(), 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		out.WriteString(strconv.FormatUint(v.Uint(), 10))
	case reflect.Float32, reflect.Float64:
		out.WriteString(pythonRepr(v.Float()))
	case reflect.String:
		return writeString(out, v.String(), path)
	case reflect.Slice, reflect.Array:
		out.WriteByte('[')
		for i := 0; i < v.Len(); i++ {
			if i > 0 {
				out.WriteString(", ")
			}
			if err := writeJSON(out, v.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		out.WriteByte(']')
	case reflect.Map:
		return writeObject(out, v, path)
	default:
		return fmt.Errorf("%s is a %s: %w", path, v.Type(), errNotJSON)
	}
	return nil
}

func writeObject(out *strings.Builder, v reflect.Value, path string) error {
	if v.Type().Key().Kind() != reflect.String {
		return fmt.Errorf("%s has keys of type %s, and JSON's are strings: %w", path, v.Type().Key(), errNotJSON)
	}
	keys := v.MapKeys()
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	out.WriteByte('{')
	for i, key := range keys {
		if i > 0 {
			out.WriteString(", ")
		}
		inner := fmt.Sprintf("%s[%q]", path, key.String())
		if err := writeString(out, key.String(), inner); err != nil {
			return err
		}
		out.WriteString(": ")
		if err := writeJSON(out, v.MapIndex(key), inner); err != nil {
			return err
		}
	}
	out.WriteByte('}')
	return nil
}

func writeString(out *strings.Builder, s string, path string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("%s is a string that is not UTF-8: %w", path, errNotJSON)
	}
	out.WriteByte('"')
	for _, char := range s {
		if short := strings.IndexRune("\"\\\n\r\t\b\f", char); short >= 0 {
			out.WriteString(`\` + `"\nrtbf`[short:short+1])
		} else if char >= ' ' && char <= '~' {
			out.WriteRune(char)
		} else if char > 0xffff {
			high, low := utf16.EncodeRune(char)
			fmt.Fprintf(out, `\u%04x\u%04x`, high, low)
		} else {
			fmt.Fprintf(out, `\u%04x`, char)
		}
	}
	out.WriteByte('"')
	return nil
}

// writeNumber writes a literal as Python's json.loads then json.dumps would: an integer
// exactly (`-0` is 0), a float as its repr (`1.00` is 1.0, `1e400` is Infinity).
func writeNumber(out *strings.Builder, literal string, path string) error {
	if !isNumber(literal) {
		return fmt.Errorf("%s is json.Number(%q), which is no JSON number: %w", path, literal, errNotJSON)
	}
	if !strings.ContainsAny(literal, ".eE") {
		if literal == "-0" {
			literal = "0"
		}
		out.WriteString(literal)
		return nil
	}
	// Out of range is still the nearest double (an infinity, or zero), as Python reads it.
	float, _ := strconv.ParseFloat(literal, 64)
	out.WriteString(pythonRepr(float))
	return nil
}

// pythonRepr is Python's repr of a float: the shortest digits that read back, in fixed
// notation when the decimal point falls within 16 digits of them, else as 1e+16, 1e-05.
func pythonRepr(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	sign := ""
	if math.Signbit(f) {
		sign, f = "-", -f
	}
	// 'e' with precision -1: the shortest digits, as "d.dddde±XX".
	mantissa, exponent, _ := strings.Cut(strconv.FormatFloat(f, 'e', -1, 64), "e")
	digits := strings.Replace(mantissa, ".", "", 1)
	power, _ := strconv.Atoi(exponent)
	point := power + 1 // digits[:point] is the integer part
	switch {
	case point <= -4 || point > 16:
		if len(digits) > 1 {
			digits = digits[:1] + "." + digits[1:]
		}
		return fmt.Sprintf("%s%se%+03d", sign, digits, power)
	case point <= 0:
		return sign + "0." + strings.Repeat("0", -point) + digits
	case point >= len(digits):
		return sign + digits + strings.Repeat("0", point-len(digits)) + ".0"
	default:
		return sign + digits[:point] + "." + digits[point:]
	}
}
