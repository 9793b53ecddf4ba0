package scoring

import (
	"bytes"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	pg "github.com/pganalyze/pg_query_go/v5"
	"github.com/pganalyze/pg_query_go/v5/parser"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/tracelab-dev/tracelab/model"
)

// parseSQL parses SQL text into pg_query's tree, as pg.Parse does.
//
// pg.Parse has the C library write the tree as protobuf and reads that
// back: for an ordinary agent query the C side takes 74 µs, three
// quarters of it in the protobuf writer, and the reading 20 µs. The
// library's JSON output of the same tree takes 20 µs in all, and it is
// protobuf's JSON mapping of the tree but for one loss: an Integer node whose value is zero or negative is
// written without its value (libpg_query #243, fixed after the v5 line).
// So the JSON is read here into the same protobuf types, strictly: the
// lost value of a constant is read back from the SQL text at the
// constant's location, and anything else this reader does not expect (a
// lost value elsewhere, an unknown field, a value of another shape, text
// that is not UTF-8, which pg.Parse refuses) sends the text to pg.Parse
// instead. TestParseSQLAsParse and FuzzParseSQL hold the two trees equal.
func parseSQL(sql string) (*pg.ParseResult, error) {
	if tree, ok, err := parseFromJSON(sql); ok {
		return tree, err
	}
	return pg.Parse(sql)
}

// parseFromJSON is parseSQL's fast way; without ok, the text needs
// pg.Parse.
func parseFromJSON(sql string) (*pg.ParseResult, bool, error) {
	if !utf8.ValidString(sql) {
		return nil, false, nil
	}
	js, err := parser.ParseToJSON(sql)
	if err != nil {
		return nil, true, err // the error pg.Parse gives: both come from the one C parser
	}
	d := pgJSON{js: []byte(js), sql: sql}
	tree, err := d.decode()
	if err != nil {
		return nil, false, nil
	}
	return tree, true, nil
}

// errPGJSON is any JSON the reader does not take: the caller then parses
// the text again with pg.Parse.
var errPGJSON = errors.New("pg_query JSON not as expected")

// pgJSON turns one JSON text, as pg_query writes it (no white space, the
// escapes of its _outToken, numbers for integers, names for enums), into
// the protobuf encoding of the same tree, which proto.Unmarshal then reads
// as pg.Parse does. Setting the fields through protoreflect instead costs
// four times as much: the tree is mostly oneofs, which it sets by
// reflection.
type pgJSON struct {
	js  []byte
	pos int
	sql string // the parsed text, to read a constant's lost value from
	buf []byte

	lastInt int64 // the integer value just written
	lost    bool  // the Integer just written had no value (zero or negative)
	lostAt  int   // where the contents of a constant's lost Integer start, or -1
}

// pgMessage is what the reader needs of one message type of the tree, its
// fields by JSON name, made once from the descriptors (pgMessages):
// looking a field up in the descriptor itself was a quarter of the
// reader's time.
type pgMessage struct {
	fields  map[string]*pgField
	integer bool // pg.Integer
	aConst  bool // pg.A_Const
}

type pgField struct {
	tag    []byte // the field's tag with its wire type
	kind   protoreflect.Kind
	list   bool
	msg    *pgMessage                         // of a message field
	enum   map[string]protoreflect.EnumNumber // of an enum field
	aConst int                                // 1: an A_Const's ival, 2: its location
}

const (
	aConstIval = 1
	aConstLoc  = 2
)

var pgMessages = sync.OnceValue(func() *pgMessage {
	byName := map[protoreflect.FullName]*pgMessage{}
	var walk func(protoreflect.MessageDescriptor) *pgMessage
	walk = func(desc protoreflect.MessageDescriptor) *pgMessage {
		if m, ok := byName[desc.FullName()]; ok {
			return m
		}
		m := &pgMessage{fields: map[string]*pgField{}}
		byName[desc.FullName()] = m
		m.integer = desc.FullName() == "pg_query.Integer"
		m.aConst = desc.FullName() == "pg_query.A_Const"
		fs := desc.Fields()
		for i := range fs.Len() {
			fd := fs.Get(i)
			if fd.IsMap() {
				continue // none in a parse tree; a key of one is then unknown
			}
			f := &pgField{kind: fd.Kind(), list: fd.IsList()}
			wire := protowire.VarintType
			switch fd.Kind() {
			case protoreflect.MessageKind:
				wire = protowire.BytesType
				f.msg = walk(fd.Message())
			case protoreflect.StringKind:
				wire = protowire.BytesType
			case protoreflect.EnumKind:
				f.enum = map[string]protoreflect.EnumNumber{}
				vs := fd.Enum().Values()
				for j := range vs.Len() {
					f.enum[string(vs.Get(j).Name())] = vs.Get(j).Number()
				}
			}
			f.tag = protowire.AppendTag(nil, fd.Number(), wire)
			if m.aConst {
				switch fd.Name() {
				case "ival":
					f.aConst = aConstIval
				case "location":
					f.aConst = aConstLoc
				}
			}
			m.fields[fd.JSONName()] = f
		}
		return m
	}
	return walk((&pg.ParseResult{}).ProtoReflect().Descriptor())
})

// integerIval is Integer's one field, ival, as the lost value is written.
var integerIval = protowire.AppendTag(nil, 1, protowire.VarintType)

// pgBufs holds the encodings' buffers: proto.Unmarshal copies what it
// keeps.
var pgBufs = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledBuf is the largest buffer pgBufs keeps.
const maxPooledBuf = 1 << 20

// decode reads the whole JSON text into a tree.
func (d *pgJSON) decode() (*pg.ParseResult, error) {
	bp := pgBufs.Get().(*[]byte)
	d.buf, d.lostAt = (*bp)[:0], -1
	defer func() {
		if cap(d.buf) <= maxPooledBuf { // one huge statement's encoding is not kept
			*bp = d.buf[:0]
			pgBufs.Put(bp)
		}
	}()
	if err := d.message(pgMessages()); err != nil {
		return nil, err
	}
	if d.pos != len(d.js) {
		return nil, errPGJSON
	}
	tree := &pg.ParseResult{}
	if err := proto.Unmarshal(d.buf, tree); err != nil {
		return nil, errPGJSON
	}
	return tree, nil
}

func (d *pgJSON) eat(c byte) bool {
	if d.pos < len(d.js) && d.js[d.pos] == c {
		d.pos++
		return true
	}
	return false
}

// message writes the fields of one object, a message of type m.
func (d *pgJSON) message(m *pgMessage) error {
	if !d.eat('{') {
		return errPGJSON
	}
	keys, loc := 0, int64(-1)
	if !d.eat('}') {
		for {
			key, err := d.rawString()
			if err != nil || !d.eat(':') {
				return errPGJSON
			}
			f := m.fields[string(key)]
			if f == nil {
				return errPGJSON
			}
			if err := d.field(f); err != nil {
				return err
			}
			if f.aConst == aConstLoc {
				loc = d.lastInt
			}
			keys++
			if d.eat(',') {
				continue
			}
			if d.eat('}') {
				break
			}
			return errPGJSON
		}
	}
	switch {
	case m.integer:
		// Zero or negative: only a constant's can be told (below).
		d.lost = keys == 0
	case m.aConst:
		return d.constant(loc)
	}
	return nil
}

// constant gives the integer constant just written without its value the
// value its text at loc has: 0, or a negative number, whose location is
// the minus sign's.
func (d *pgJSON) constant(loc int64) error {
	if d.lostAt < 0 {
		return nil
	}
	at := d.lostAt
	d.lostAt = -1
	v, ok := integerAt(d.sql, int(loc))
	if !ok {
		return errPGJSON
	}
	if v == 0 {
		return nil
	}
	ival := protowire.AppendVarint(slices.Clip(integerIval), uint64(int64(v)))
	d.buf = slices.Insert(d.buf, at, ival...)
	putLength(d.buf[at-lengthSize:], len(ival))
	return nil
}

// integerAt reads the integer constant at offset loc of sql: a literal
// whose value is zero, or a minus sign, white space and a literal, within
// int32 (a larger one is a Float node). It does not take what it cannot
// read for sure.
func integerAt(sql string, loc int) (int32, bool) {
	if loc < 0 || loc >= len(sql) {
		return 0, false
	}
	s, neg := sql[loc:], false
	if s[0] == '-' {
		s, neg = strings.TrimLeft(s[1:], " \t\n\r\f"), true
	}
	end := 0
	for end < len(s) && (isDigit(s[end]) || s[end] == '_' || isLetter(s[end])) {
		end++
	}
	lit := s[:end]
	base := 10
	if len(lit) > 1 && lit[0] == '0' && strings.ContainsRune("xXoObB", rune(lit[1])) {
		base = 0 // strconv reads PostgreSQL's 0x, 0o and 0b prefixes and their underscores
	} else {
		lit = strings.ReplaceAll(lit, "_", "") // a leading 0 is still decimal, unlike base 0
	}
	n, err := strconv.ParseInt(lit, base, 64)
	if err != nil || (n != 0) != neg || n > 1<<31 {
		return 0, false
	}
	if neg {
		n = -n
	}
	if n < -1<<31 {
		return 0, false
	}
	return int32(n), true
}

func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// lengthSize is the room the length of a message or string takes before its contents:
// the length is known only once they are written, and protobuf readers
// take a varint padded to five bytes.
const lengthSize = 5

func putLength(b []byte, n int) {
	for i := range lengthSize - 1 {
		b[i] = byte(n>>(7*i)) | 0x80
	}
	b[lengthSize-1] = byte(n >> (7 * (lengthSize - 1)))
}

// field writes one field's value or values.
func (d *pgJSON) field(f *pgField) error {
	if !f.list {
		return d.value(f)
	}
	if !d.eat('[') {
		return errPGJSON
	}
	if d.eat(']') {
		return nil
	}
	for {
		if err := d.value(f); err != nil {
			return err
		}
		if d.eat(',') {
			continue
		}
		if d.eat(']') {
			return nil
		}
		return errPGJSON
	}
}

// value writes one value of field f, of one of the kinds a parse tree
// has (no floats, bytes or 64-bit integers).
func (d *pgJSON) value(f *pgField) error {
	d.buf = append(d.buf, f.tag...)
	switch f.kind {
	case protoreflect.MessageKind:
		d.buf = append(d.buf, make([]byte, lengthSize)...)
		start := len(d.buf)
		if err := d.message(f.msg); err != nil {
			return err
		}
		putLength(d.buf[start-lengthSize:], len(d.buf)-start)
		if d.lost {
			d.lost = false
			if f.aConst != aConstIval {
				return errPGJSON // only a constant has a location to read a lost value at
			}
			d.lostAt = start
		}
		return nil
	case protoreflect.StringKind:
		return d.string()
	case protoreflect.BoolKind:
		v := uint64(0)
		switch {
		case bytes.HasPrefix(d.js[d.pos:], []byte("true")):
			d.pos, v = d.pos+4, 1
		case bytes.HasPrefix(d.js[d.pos:], []byte("false")):
			d.pos += 5
		default:
			return errPGJSON
		}
		d.buf = protowire.AppendVarint(d.buf, v)
		return nil
	case protoreflect.EnumKind:
		name, err := d.rawString()
		if err != nil {
			return err
		}
		v, ok := f.enum[string(name)]
		if !ok {
			return errPGJSON
		}
		d.buf = protowire.AppendVarint(d.buf, uint64(int64(v)))
		return nil
	case protoreflect.Int32Kind, protoreflect.Uint32Kind:
		n, ok := d.integer()
		if !ok || (f.kind == protoreflect.Uint32Kind && n < 0) || (f.kind == protoreflect.Int32Kind && n > 1<<31-1) {
			return errPGJSON
		}
		d.lastInt = n
		d.buf = protowire.AppendVarint(d.buf, uint64(n))
		return nil
	}
	return errPGJSON
}

// integer reads a JSON integer within 32 bits, signed or not.
func (d *pgJSON) integer() (int64, bool) {
	end := d.pos
	if end < len(d.js) && d.js[end] == '-' {
		end++
	}
	for end < len(d.js) && isDigit(d.js[end]) {
		end++
	}
	n, err := strconv.ParseInt(string(d.js[d.pos:end]), 10, 64)
	d.pos = end
	return n, err == nil && n >= -1<<31 && n <= 1<<32-1
}

// rawString reads a string without escapes (a key or an enum name) as a
// part of the JSON text.
func (d *pgJSON) rawString() ([]byte, error) {
	if !d.eat('"') {
		return nil, errPGJSON
	}
	end := bytes.IndexByte(d.js[d.pos:], '"')
	if end < 0 {
		return nil, errPGJSON
	}
	s := d.js[d.pos : d.pos+end]
	if bytes.IndexByte(s, '\\') >= 0 {
		return nil, errPGJSON
	}
	d.pos += end + 1
	return s, nil
}

// string writes a string value as a protobuf string, its escapes undone
// as JSON's: _outToken writes them as JSON does. Its length goes before
// it padded, as a message's does.
func (d *pgJSON) string() error {
	if !d.eat('"') {
		return errPGJSON
	}
	d.buf = append(d.buf, make([]byte, lengthSize)...)
	start := len(d.buf)
	var ok bool
	if d.buf, d.pos, ok = model.AppendUnquoted(d.buf, d.js, d.pos, false); !ok {
		return errPGJSON
	}
	putLength(d.buf[start-lengthSize:], len(d.buf)-start)
	return nil
}
