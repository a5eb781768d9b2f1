module delegateos-adapter

go 1.18
