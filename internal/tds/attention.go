package tds

// IsAttention reports whether m is an Attention signal (MS-TDS 2.2.1.7,
// packet type 6): a client's cancel of the running request. It has no payload;
// the server answers with DONE carrying DoneAttn (done.go).
func IsAttention(m Message) bool { return m.Type == PacketAttention }

// AppendAttention appends an Attention packet (header only, EOM) to dst.
func AppendAttention(dst []byte, spid uint16) []byte {
	return Header{Type: PacketAttention, Status: StatusEOM, Length: HeaderLen, SPID: spid, PacketID: 1}.Append(dst)
}
