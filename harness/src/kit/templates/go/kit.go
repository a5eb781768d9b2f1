// DelegateOS adapter kit for Go (standard library only).
//
// Written by `delegateos-conform new-adapter --lang go`; you should not need to edit it. It
// speaks adapter protocol v1 (spec/adapter-protocol.md) on stdin/stdout: one JSON object per
// line, `seq` echoed, `hello` declaring exactly the operations whose stub in ops.go was filled
// in and the options listed in ops.go's Options, `bye`. A stub is "not filled in" while its body is the single statement
// `return nil, TODO` (read from ops.go, embedded at build time); such operations are not
// declared, so the harness reports their cases `skipped`.
//
// In an operation function:
//   - return the operation's `ok` output (an Output object) and nil;
//   - return nil, Fail(code, detail) for a spec error code (spec/error-codes.md);
//   - return nil, Invalid(format, ...) when the input lacks the catalogue's shape (`invalid_input`);
//   - return nil, Skip(reason) for an input your library cannot represent (`skipped`);
//   - return nil, TODO to leave an input unimplemented for now (`skipped`).
//
// A panic is reported `threw` (the implementation threw on this input, graded as a crash on it:
// spec/adapter-protocol.md §2.2); any other error is reported `errored` with its text; the
// adapter keeps running. Map your library's own errors onto codes in ops.go's libraryError.
package main

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"regexp"
	"runtime/debug"
	"sort"
	"strings"
	"time"
)

// Protocol is the adapter protocol version spoken.
const Protocol = 1

// Input is an operation's input object; numbers are json.Number.
type Input = map[string]any

// Output is an operation's `ok` output object.
type Output = map[string]any

// Op is one operation function.
type Op func(in Input) (Output, error)

// Operation binds a catalogue name to its function (and the function's name in ops.go).
type Operation struct {
	Name     string
	FuncName string
	Fn       Op
}

// TODO is returned by a stub that is not filled in yet.
var TODO = errors.New("TODO: operation not implemented yet")

// SpecError is a spec error code; Detail is free text, never compared.
type SpecError struct{ Code, Detail string }

func (e *SpecError) Error() string { return e.Code + ": " + e.Detail }

// Fail returns a spec error code.
func Fail(code, detail string) error { return &SpecError{code, detail} }

// Invalid returns `invalid_input`: the input lacks the shape spec/operations.md requires.
func Invalid(format string, args ...any) error {
	return &SpecError{"invalid_input", fmt.Sprintf(format, args...)}
}

type skipError struct{ reason string }

func (e *skipError) Error() string { return e.reason }

// Skip reports the case `skipped` (an input your library cannot represent).
func Skip(reason string) error { return &skipError{reason} }

//go:embed ops.go
var opsSource string

// stubs returns the names of the functions of ops.go whose body is only `return nil, TODO`.
func stubs() map[string]bool {
	out := map[string]bool{}
	file, err := parser.ParseFile(token.NewFileSet(), "ops.go", opsSource, 0)
	if err != nil {
		return out
	}
	for _, decl := range file.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Body == nil || len(fn.Body.List) != 1 {
			continue
		}
		ret, ok := fn.Body.List[0].(*ast.ReturnStmt)
		if !ok || len(ret.Results) != 2 {
			continue
		}
		first, ok1 := ret.Results[0].(*ast.Ident)
		second, ok2 := ret.Results[1].(*ast.Ident)
		if ok1 && ok2 && first.Name == "nil" && second.Name == "TODO" {
			out[fn.Name.Name] = true
		}
	}
	return out
}

// Declared returns the operations whose stub is filled in: what `hello` declares.
func Declared(all []Operation) map[string]Op {
	todo := stubs()
	out := map[string]Op{}
	for _, op := range all {
		if !todo[op.FuncName] {
			out[op.Name] = op.Fn
		}
	}
	return out
}

// --- input helpers ---------------------------------------------------------------------------

// Fields checks that `in` has exactly the required keys plus any of the optional ones.
func Fields(in Input, required []string, optional ...string) error {
	var missing, unknown []string
	for _, k := range required {
		if _, ok := in[k]; !ok {
			missing = append(missing, k)
		}
	}
	for k := range in {
		if !contains(required, k) && !contains(optional, k) {
			unknown = append(unknown, k)
		}
	}
	if len(missing) > 0 || len(unknown) > 0 {
		sort.Strings(unknown)
		return Invalid("missing %v, unknown %v", missing, unknown)
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Str returns the string member `key`.
func Str(in Input, key string) (string, error) {
	s, ok := in[key].(string)
	if !ok {
		return "", Invalid("%s must be a string", key)
	}
	return s, nil
}

// Int returns the integer member `key`.
func Int(in Input, key string) (int64, error) {
	n, ok := in[key].(json.Number)
	if !ok {
		return 0, Invalid("%s must be an integer", key)
	}
	v, err := n.Int64()
	if err != nil {
		return 0, Invalid("%s must be an integer", key)
	}
	return v, nil
}

var hexRe = regexp.MustCompile(`^(?:[0-9a-f]{2})*$`)

// Hex returns the lowercase, even-length hex member `key` as bytes (spec/operations.md §1).
func Hex(in Input, key string) ([]byte, error) {
	s, ok := in[key].(string)
	if !ok || !hexRe.MatchString(s) {
		return nil, Invalid("%s must be lowercase hex", key)
	}
	return hex.DecodeString(s)
}

// Seed returns the 32-byte Ed25519 seed member `key` (64 lowercase hex characters).
func Seed(in Input, key string) ([]byte, error) {
	b, err := Hex(in, key)
	if err == nil && len(b) != 32 {
		err = Invalid("%s must be 32 bytes", key)
	}
	return b, err
}

var b64urlRe = regexp.MustCompile(`^[A-Za-z0-9_-]*$`)

// B64urlDecode decodes strict base64url (no padding, URL alphabet, zero trailing bits);
// anything else is `invalid_encoding`.
func B64urlDecode(text string) ([]byte, error) {
	if !b64urlRe.MatchString(text) || len(text)%4 == 1 {
		return nil, Fail("invalid_encoding", "not unpadded base64url")
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(text)
	if err != nil {
		return nil, Fail("invalid_encoding", err.Error())
	}
	return b, nil
}

// B64urlEncode encodes base64url without padding.
func B64urlEncode(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// PrincipalKey decodes a principal id (base64url of a 32-byte Ed25519 public key, 43
// characters) to the key bytes.
func PrincipalKey(principal string) ([]byte, error) {
	if len(principal) != 43 {
		return nil, errors.New("a principal id is 43 base64url characters")
	}
	b, err := B64urlDecode(principal)
	if err != nil {
		return nil, fmt.Errorf("not a principal id: %w", err)
	}
	return b, nil
}

// FixedClock returns a clock that always answers the instant `text` (e.g. a case's `issuedAt`
// or `now`), for a library whose create operations read the time through a clock function.
func FixedClock(text string) (func() time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, text)
	if err != nil {
		return nil, err
	}
	return func() time.Time { return t }, nil
}

// TestKey is one published test key of the corpus (vectors/src/keys.rs).
type TestKey struct{ Seed, Principal string }

// TestKeys are the published test keys of the corpus by name.
var TestKeys = map[string]TestKey{
@@TEST_KEYS@@
}

// --- the protocol loop -----------------------------------------------------------------------

func runCase(raw json.RawMessage, ops map[string]Op) (reply map[string]any) {
	defer func() {
		if p := recover(); p != nil {
			reply = map[string]any{"outcome": "threw", "message": fmt.Sprintf("panic: %v\n%s", p, debug.Stack())}
		}
	}()
	var c struct {
		Op    string          `json:"op"`
		Input json.RawMessage `json:"input"`
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		return map[string]any{"outcome": "errored", "message": "bad case: " + err.Error()}
	}
	fn, ok := ops[c.Op]
	if !ok {
		return map[string]any{"outcome": "skipped", "reason": fmt.Sprintf("operation %q not declared", c.Op)}
	}
	var in Input
	dec := json.NewDecoder(bytes.NewReader(c.Input))
	dec.UseNumber()
	if err := dec.Decode(&in); err != nil || in == nil {
		return map[string]any{"outcome": "error", "code": "invalid_input", "detail": "input must be an object"}
	}
	out, err := fn(in)
	var spec *SpecError
	var skip *skipError
	switch {
	case err == nil && out == nil:
		return map[string]any{"outcome": "errored", "message": c.Op + " returned a nil output"}
	case err == nil:
		return map[string]any{"outcome": "ok", "output": out}
	case errors.Is(err, TODO):
		return map[string]any{"outcome": "skipped", "reason": "not implemented yet (the stub returned TODO)"}
	case errors.As(err, &skip):
		return map[string]any{"outcome": "skipped", "reason": skip.reason}
	case errors.As(err, &spec):
		return map[string]any{"outcome": "error", "code": spec.Code, "detail": spec.Detail}
	}
	if code, detail, ok := libraryError(err); ok {
		return map[string]any{"outcome": "error", "code": code, "detail": detail}
	}
	return map[string]any{"outcome": "errored", "message": err.Error()}
}

func write(reply map[string]any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf) // Encode appends the newline
	enc.SetEscapeHTML(false)
	if err := enc.Encode(reply); err != nil {
		buf.Reset()
		fmt.Fprintf(&buf, "{\"seq\":%s,\"outcome\":\"errored\",\"message\":%q}\n", seqText(reply["seq"]), err.Error())
	}
	os.Stdout.Write(buf.Bytes()) // unbuffered: every reply leaves at once
}

func seqText(seq any) string {
	if b, err := json.Marshal(seq); err == nil {
		return string(b)
	}
	return "null"
}

// Serve answers frames on stdin until `bye` or end of input; `hello` declares `ops` and
// `options` (spec/adapter-protocol.md §2.1).
func Serve(implementation map[string]any, ops map[string]Op, options []string) {
	reader := bufio.NewReader(os.Stdin)
	for {
		line, err := reader.ReadBytes('\n')
		if text := strings.TrimSpace(string(line)); text != "" {
			if handle([]byte(text), implementation, ops, options) {
				return
			}
		}
		if err == io.EOF {
			return
		} else if err != nil {
			fmt.Fprintln(os.Stderr, "adapter: reading stdin:", err)
			return
		}
	}
}

func handle(line []byte, implementation map[string]any, ops map[string]Op, options []string) (bye bool) {
	var frame struct {
		Cmd  string          `json:"cmd"`
		Seq  json.RawMessage `json:"seq"`
		Case json.RawMessage `json:"case"`
	}
	if err := json.Unmarshal(line, &frame); err != nil {
		write(map[string]any{"seq": nil, "outcome": "errored", "message": "bad frame: " + err.Error()})
		return false
	}
	seq := any(nil)
	if len(frame.Seq) > 0 {
		seq = frame.Seq
	}
	switch frame.Cmd {
	case "hello":
		names := make([]string, 0, len(ops))
		for name := range ops {
			names = append(names, name)
		}
		sort.Strings(names)
		fmt.Fprintf(os.Stderr, "adapter: declaring %d operation(s): %s\n", len(names), strings.Join(names, ", "))
		declared := append([]string{}, options...) // never null on the wire
		write(map[string]any{"seq": seq, "protocol": Protocol, "implementation": implementation, "operations": names, "options": declared})
	case "run":
		reply := runCase(frame.Case, ops)
		reply["seq"] = seq
		write(reply)
	case "bye":
		write(map[string]any{"seq": seq, "outcome": "ok"})
		return true
	default:
		write(map[string]any{"seq": seq, "outcome": "errored", "message": fmt.Sprintf("unknown cmd %q", frame.Cmd)})
	}
	return false
}

func main() {
	Serve(Implementation, Declared(operations), Options)
}
