package tds

import (
	"encoding/binary"
	"fmt"
)

// DATACLASSIFICATION versions (the first byte of the server's
// FEATUREEXTACK for FeatureDataClassif, MS-TDS 2.2.7.11): version 2 adds
// the SensitivityRank fields.
const (
	DataClassV1 byte = 1
	DataClassV2 byte = 2
)

// SensitivityLabel and InformationType are the named entries of
// DATACLASSIFICATION, each a name and an id (B_VARCHAR).
type SensitivityLabel struct{ Name, ID string }

// InformationType: see SensitivityLabel.
type InformationType struct{ Name, ID string }

// SensitivityProperty is one classification of a result column: indexes
// into Labels and InfoTypes (0xFFFF: none), and its rank (version 2).
type SensitivityProperty struct {
	Label, InfoType uint16
	Rank            int32
}

// DataClassification is the DATACLASSIFICATION token (0xA3), MS-TDS
// 2.2.7.5, sent before a result set's rows when the client asked for the
// feature at login and the server acknowledged it: the labels and
// information types, the query's rank (version 2), then per result column
// its sensitivity properties.
type DataClassification struct {
	Labels    []SensitivityLabel
	InfoTypes []InformationType
	Rank      int32 // version 2 only
	Columns   [][]SensitivityProperty
}

// DecodeDataClassification parses a DATACLASSIFICATION body (after the
// token byte) in the layout of version (DataClassV1 or DataClassV2, as the
// login's FEATUREEXTACK said) and returns the bytes it used. Errors:
// ErrShort; ErrCannotFrame (wrapped) for any other version.
func DecodeDataClassification(b []byte, version byte) (*DataClassification, int, error) {
	if version != DataClassV1 && version != DataClassV2 {
		return nil, 0, fmt.Errorf("%w: DATACLASSIFICATION of version %d", ErrCannotFrame, version)
	}
	r := &reader{b: b}
	d := &DataClassification{}
	for range int(r.u16("SensitivityLabelCount")) {
		if r.err != nil {
			return nil, 0, r.err
		}
		d.Labels = append(d.Labels, SensitivityLabel{Name: r.bvarchar("SensitivityLabelName"), ID: r.bvarchar("SensitivityLabelId")})
	}
	for range int(r.u16("InformationTypeCount")) {
		if r.err != nil {
			return nil, 0, r.err
		}
		d.InfoTypes = append(d.InfoTypes, InformationType{Name: r.bvarchar("InformationTypeName"), ID: r.bvarchar("InformationTypeId")})
	}
	if version >= DataClassV2 {
		d.Rank = int32(r.u32("SensitivityRank"))
	}
	for range int(r.u16("NumResultSetColumns")) {
		if r.err != nil {
			return nil, 0, r.err
		}
		props := []SensitivityProperty{}
		for range int(r.u16("NumSensitivityProperties")) {
			if r.err != nil {
				return nil, 0, r.err
			}
			p := SensitivityProperty{Label: r.u16("SensitivityLabelIndex"), InfoType: r.u16("InformationTypeIndex")}
			if version >= DataClassV2 {
				p.Rank = int32(r.u32("SensitivityRank"))
			}
			props = append(props, p)
		}
		d.Columns = append(d.Columns, props)
	}
	if r.err != nil {
		return nil, 0, r.err
	}
	return d, r.off, nil
}

// Append writes the whole token to dst in the layout of version.
func (d *DataClassification) Append(dst []byte, version byte) []byte {
	le := binary.LittleEndian
	dst = append(dst, TokenDataClassif)
	dst = le.AppendUint16(dst, uint16(len(d.Labels)))
	for _, l := range d.Labels {
		dst = appendBVarchar(appendBVarchar(dst, l.Name), l.ID)
	}
	dst = le.AppendUint16(dst, uint16(len(d.InfoTypes)))
	for _, t := range d.InfoTypes {
		dst = appendBVarchar(appendBVarchar(dst, t.Name), t.ID)
	}
	if version >= DataClassV2 {
		dst = le.AppendUint32(dst, uint32(d.Rank))
	}
	dst = le.AppendUint16(dst, uint16(len(d.Columns)))
	for _, props := range d.Columns {
		dst = le.AppendUint16(dst, uint16(len(props)))
		for _, p := range props {
			dst = le.AppendUint16(dst, p.Label)
			dst = le.AppendUint16(dst, p.InfoType)
			if version >= DataClassV2 {
				dst = le.AppendUint32(dst, uint32(p.Rank))
			}
		}
	}
	return dst
}
