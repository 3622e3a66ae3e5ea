import sys
# mktable.py ACC COLUMN(dispatch|nearest|policy) PRED_TXT OUT
acc,col,pred,out=sys.argv[1:5]
ci={'dispatch':6,'nearest':7,'policy':8}[col]
rows=[]
for l in open(pred):
    f=l.split()
    if not f or not f[0].isdigit(): continue
    m,n,k,lay=int(f[0]),int(f[1]),int(f[2]),f[3]
    if m<=16: continue
    cfg=f[ci]
    if not cfg.startswith('sm90'): cfg=f[6]   # policy may pick sm80; keep dispatch's then
    rows.append((m,n,k,lay,cfg))
cfgs=sorted(set(r[4] for r in rows))
with open(out,'w') as o:
    o.write("hgemm-dispatch-table 1\ngpu NVIDIA H100 80GB HBM3\nsm_count 132\nacc %s\nsource %s\nmeasured_split_k 1\nconfigs %d\n"%(acc,pred.split('/')[-1],len(cfgs)))
    for c in cfgs: o.write(c+"\n")
    rows.sort()
    o.write("entries %d\n"%len(rows))
    for m,n,k,lay,c in rows: o.write("%d %d %d %s %d 1\n"%(m,n,k,lay,cfgs.index(c)))
