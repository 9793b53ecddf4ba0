package store

import "hash/maphash"

// idFilter is the set of trace ids a staged import has written so far, as
// a Bloom filter: it answers "not written" for sure and "written" perhaps.
// The staging database's unique index on trace_id has the exact answer;
// the filter only spares asking it for the ids never seen, which are
// nearly all of them. The map of every id it replaces grew with the file
// (15 MB at 300k traces, more than twice that in the heap's headroom);
// the filter keeps under 4 bytes per id, and a wrong "perhaps" (about
// one id in a thousand per part) costs one indexed lookup.
//
// It grows by adding a filter twice the size of the last when that one
// is full, so a small import stays small and the rate of wrong answers
// stays near its target at any size.
type idFilter struct {
	seed  maphash.Seed
	parts []bloomPart
}

// bloomPart is one fixed-size filter: bits, the ids it may hold (cap)
// and the ids added (n).
type bloomPart struct {
	bits   []uint64
	n, cap int
}

const (
	idFilterFirst  = 1 << 14 // ids in the first part
	idFilterBits   = 14      // bits per id: about 0.1% wrong with idFilterHashes
	idFilterHashes = 9
)

func newIDFilter() *idFilter { return &idFilter{seed: maphash.MakeSeed()} }

// hashes is the two halves of id's hash that the probes combine.
func (f *idFilter) hashes(id string) (h1, h2 uint32) {
	h := maphash.String(f.seed, id)
	return uint32(h), uint32(h>>32) | 1
}

// add puts id in the set.
func (f *idFilter) add(id string) {
	if len(f.parts) == 0 || f.parts[len(f.parts)-1].n >= f.parts[len(f.parts)-1].cap {
		c := idFilterFirst << len(f.parts)
		f.parts = append(f.parts, bloomPart{bits: make([]uint64, (c*idFilterBits+63)/64), cap: c})
	}
	p := &f.parts[len(f.parts)-1]
	h1, h2 := f.hashes(id)
	m := uint32(len(p.bits) * 64)
	for i := uint32(0); i < idFilterHashes; i++ {
		b := (h1 + i*h2) % m
		p.bits[b/64] |= 1 << (b % 64)
	}
	p.n++
}

// mayHold says id may be in the set; false is certain.
func (f *idFilter) mayHold(id string) bool {
	h1, h2 := f.hashes(id)
	for pi := range f.parts {
		p := &f.parts[pi]
		m := uint32(len(p.bits) * 64)
		all := true
		for i := uint32(0); i < idFilterHashes; i++ {
			b := (h1 + i*h2) % m
			if p.bits[b/64]&(1<<(b%64)) == 0 {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}
