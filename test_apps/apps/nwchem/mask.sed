# sed -E script: removes or trims the lines of an NWChem output that change
# from run to run (clock, wall/cpu times, disk- and address-dependent sizes).
/^ +date += /d
/^ +Time after variat\. SCF:/d
/^ +Time prior to 1st pass:/d
/^ +Total iterative time =/d
/^ Task  times  cpu:/d
/^ Total times  cpu:/d
/^ Max\. records in memory =/d
/^ +(heap|stack|total) += +[0-9]+ doubles = /d
/^\s+maximum total (bytes|K-bytes|M-bytes)\s/d
s/^( d= [0-9],ls=[0-9.]+,diis +[0-9]+ .*D[-+][0-9][0-9]) +[0-9]+\.[0-9]$/\1/
