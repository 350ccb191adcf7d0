// Package slab hands out values of one type from arrays allocated several
// at a time, so that making many small values costs few allocations.
//
// A value stays valid for as long as it is referenced, as any heap value
// does: an array is collected once none of its values is referenced any
// more. A value's neighbours live as long as it does, so a slab suits
// values made and dropped together, such as the records of one run.
package slab
