import json,sys
p=sys.argv[1]
n=0
for line in open(p):
    try: o=json.loads(line)
    except: continue
    t=o.get('type')
    m=o.get('message',{})
    if t=='user':
        c=m.get('content')
        if isinstance(c,str):
            n+=1; print(f'\n### USER PROMPT {n}:',c[:3000])
        elif isinstance(c,list):
            for b in c:
                if b.get('type')=='text':
                    n+=1; print(f'\n### USER PROMPT {n} (list):',b['text'][:3000])
                elif b.get('type')=='tool_result':
                    cc=b.get('content')
                    s=json.dumps(cc) if not isinstance(cc,str) else cc
                    print('   <result>',s[:int(sys.argv[2]) if len(sys.argv)>2 else 300].replace('\\n','\n'))
    elif t=='assistant':
        for b in m.get('content',[]):
            if b.get('type')=='text': print('AGENT:',b['text'][:2000])
            elif b.get('type')=='tool_use': print('TOOL:',json.dumps(b['input'])[:600])
    elif t in ('system','attachment'):
        s=json.dumps(o)
        if 'kgraph' in s or 'hook' in s.lower():
            print('   [SYS/ATTACH]',s[:400])
