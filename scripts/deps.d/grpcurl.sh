go_tool grpcurl github.com/fullstorydev/grpcurl/cmd/grpcurl@v1.9.3
