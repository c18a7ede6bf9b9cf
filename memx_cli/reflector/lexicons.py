"""Trigger vocabulary of the five rules in English, Chinese, Japanese, Korean and French,
with the core of German, Spanish and Portuguese (one line each, after the French).

Each list is matched word by word (``vocab.Lexicon``); ``*`` marks a word prefix. Lists
are short and specific on purpose: a phrase that also occurs in ordinary talk ("need to")
costs precision everywhere, so such words only feed the scorer, never a rule.
"""

from __future__ import annotations

from memx_cli.reflector.vocab import Lexicon, phrases

# An error stated in prose. Evidence lines (tracebacks, "error:" lines) are in detector.py.
ERROR = Lexicon(phrases("""
error; errors; exception; exceptions; failed; fails; failing; failure; failures; crash;
crashed; crashes; crashing; broken; segfault; segfaults; traceback; panic; panics; panicked;
doesn't work;
does not work; not working; won't start; won't compile; can't connect; cannot connect;
timed out; times out; blows up; blew up; throws; threw; regression; stack trace;
out of memory; oomkilled; crashloopbackoff; restart loop; keeps restarting; dies; died;
incompatible
报错; 错误; 失败; 异常; 崩溃; 崩了; 出错; 挂了; 超时; 跑不起来; 编译不过; 不工作; 不生效; 连不上;
内存溢出; 一直重启; 白屏
エラー; 失敗; 例外; 落ちる; 落ちた; 動かない; 起動しない; タイムアウト; クラッシュ; 不具合; メモリ不足
오류; 에러; 실패; 예외; 작동하지; 타임아웃; 충돌; 버그; 안 됨; 안 돼; 메모리 부족
erreur; erreurs; échec; échou*; plante; planté; plantage; ne marche pas;
ne fonctionne pas; ne fonctionnait pas; ne marchait pas; bogue; en boucle; mémoire insuffisante
fehler; fehlgeschlagen; schlägt fehl; schlug fehl; stürzt ab; abgestürzt; absturz;
funktioniert nicht; geht nicht; kaputt
errores; falla; fallaba; falló; se cae; se cuelga; no funciona; no arranca
erro; erros; falha; falhou; falhava; quebrava; quebrou; não funciona; não compila
"""))

# Error words inside these compounds talk about code, not about a failure.
ERROR_COMPOUNDS = Lexicon(phrases("""
error handling; error handler; error handlers; error rate; error rates; error-prone;
error prone; error budget; error boundary; error page; error reporting; error tracking;
error codes; error code; no errors; no error; without errors; without error; 0 errors;
handling errors; handles errors; handle errors;
zero errors; 0 failed; no failures; exception handling; 错误处理; 异常处理; エラー処理;
오류 처리; gestion des erreurs; any errors
"""))

# Error words that only name errors ("the error", an exception, エラー). A message whose
# only error evidence is these talks about errors (a task on how the code handles them);
# one that reports a failure says that something fails, shows the error or quotes it.
ERROR_NOUNS = frozenset(phrases("""
error; errors; exception; exceptions; failure; failures; traceback; stack trace
错误; 异常; エラー; 例外; 오류; 에러; 예외; erreur; erreurs; fehler; errores; erro; erros
"""))

# The problem went away.
RESOLVED = Lexicon(phrases("""
fixed; fixes it; solved; resolved; works now; working now; now works; now it works;
passes now; now passes; passing now; starts now; runs now; builds now; compiles now;
loads now; now starts; now runs; that worked; that did it; did the trick; went away;
goes away; go away; no longer; is gone; fixed it; fixes the; that was it; that was the problem;
that was the issue
解决了; 搞定; 修好了; 修复了; 就好了; 可以了; 正常了; 成功了; 不再报错; 好使了; 能跑了; 通过了
直った; 治った; 解決した; 解決しました; 動いた; 動くようになった; 通った; 消えた; 解消
해결; 고쳤; 고침; 작동합니다; 작동했; 통과했; 사라졌; 잘 됩니다; 잘 돼
corrigé; résolu*; ça marche; ça fonctionne; fonctionne maintenant; marche maintenant;
ça passe; a disparu; réglé le problème
behoben; gelöst; funktioniert jetzt; läuft jetzt; läuft wieder; hat geklappt
resuelto; solucionado; arreglado; ya funciona; ahora funciona
resolvido; resolveu; consertado; agora funciona; funciona agora; agora passa
"""))

# Why it failed.
CAUSE = Lexicon(phrases("""
turned out; turns out; the problem was; the problem is; the issue was; the issue is;
the bug was; the bug is; the cause; root cause; caused by; was caused; is caused; due to; because of;
the reason was; the reason is; the culprit; it was because; was missing; were missing;
forgot to; forgot the
原来是; 原因是; 问题是; 问题出在; 是因为; 由于; 导致; 发现是; 缺少; 忘了
原因は; 原因が; 問題は; のせいで; が足りな; 忘れ
원인은; 원인이; 문제는; 때문; 빠져; 누락
en fait; le problème venait; le problème était; la cause; causé par; à cause de; venait de;
provenait; il manquait; manquait; oublié
lag an; liegt daran; die ursache; stellte sich heraus; fehlte
resulta que; resultó que; el problema era; la causa; debido a; por culpa de; faltaba
na verdade; o problema era; a causa; causado por; por causa de; devido a; faltava
"""))

# What was done about it.
REMEDY = Lexicon(phrases("""
the fix is; the fix was; the fix; the solution; solution was; workaround; had to; needed to;
you need to; you have to; just need to; by adding; by changing; by setting; by removing;
by upgrading; by downgrading; by pinning; by installing; by switching; by using; by passing;
by running; by clearing; by replacing; by moving; by renaming; fixed by; fix it by;
fix was to; the trick is; the trick was; instead of; instead; pinned; pinning; downgraded; upgrading to;
downgrading to; otherwise; or else
改成; 改为; 换成; 加上; 去掉; 升级到; 降级到; 需要加; 要加; 得加; 重新安装; 删掉; 删除了; 加了;
改了; 设置了; 换了; 才行; 就行; 解决方法; 解决办法; 办法是; 不然; 否则
必要があ; 変更したら; 追加したら; 削除したら; にしたら; に変えたら; を入れたら; すれば; 対処; 回避
추가하니; 바꾸니; 변경하니; 해야; 필요했; 설치하니; 추가했더니; 바꿨더니; 해결 방법
il fallait; il faut; la solution; en ajoutant; en changeant; en passant; en mettant;
en supprimant; en installant; contournement; au lieu de; sinon
die lösung; stattdessen; musste; mussten; man muss
la solución; lo que funcionó; en vez de; en lugar de; hubo que; hay que
a solução; o que resolveu; o que funcionou; em vez de; ao invés de; foi preciso; tive que
"""))

# Failed attempts (RetrySuccess).
RETRY = Lexicon(phrases("""
tried; tries; try again; retried; retrying; attempt; attempts; attempted; didn't work;
did not work; didn't help; did not help; no luck; still failing; still fails; still failed;
still broken; same error; neither worked; none of; nothing worked; didn't fix; did not fix
试了; 试过; 尝试; 重试; 还是不行; 都不行; 没用; 不管用; 依然; 还是报错; 还是失败
試した; 試して; 試し; 再試行; ダメ; だめ; 効果なし; 変わらず
시도; 해봤; 해 봤; 재시도; 안 됐; 소용없; 여전히
essayé; tenté; réessayé; sans succès; rien n'y fait; toujours la même; toujours pas;
ne change rien
versucht; probiert; ohne erfolg; hat nicht geholfen; half nicht; bringt nichts
probé; probamos; intenté; intentamos; sin éxito; no sirvió; no ayudó; sigue fallando; sigue igual
tentei; tentamos; testei; sem sucesso; não resolveu; não ajudou; continua falhando; continua igual
"""))

# ...and the one that worked.
SUCCESS = Lexicon(phrases("""
finally; eventually; in the end; at last; what worked; worked; works; succeeded; passed;
went through
最后; 最终; 终于; 成功; 可以了; 才好
結局; 最終的; やっと; ようやく; 成功; うまくいった
결국; 드디어; 마침내; 성공; 됐
finalement; au final; enfin; réussi; ça a marché; a fonctionné; a marché
schließlich; endlich; am ende; hat funktioniert; hat geklappt
al final; por fin; lo que funcionó; funcionó
no fim; por fim; finalmente; o que funcionou; o que resolveu; funcionou
"""))

CONFIG_NOUN = Lexicon(phrases("""
config; configuration; configs; setting; settings; env; environment variable;
environment variables; env var; env vars; option; flag; parameter; timeout; limit;
pool size; threshold; max_connections; workers; heap; memory limit; concurrency;
prefetch; retries; replicas; batch size; cache size; ttl; log level; loglevel
配置; 设置; 环境变量; 参数; 超时; 阈值; 上限; 连接池; 并发数; 日志级别; 大小
設定; 環境変数; パラメータ; タイムアウト; 上限; ワーカー; ログレベル; サイズ
설정; 환경 변수; 환경변수; 매개변수; 타임아웃; 제한; 워커; 커넥션; 크기; 로그 레벨
configuration; paramètre; variable d'environnement; variables d'environnement; réglage;
option; délai; limite; limite mémoire; mémoire; niveau de log
"""))

CONFIG_VERB = Lexicon(phrases("""
set; changed; raised; lowered; increased; decreased; bumped; reduced; switched; configured;
updated; tuned; turned off; turned on; disabled; enabled; toggled; raise; lower; increase;
decrease
改成; 改为; 调到; 调成; 调大; 调小; 设置; 设为; 设成; 提高到; 降低到; 改到; 打开了; 关闭了;
增加到; 减少到; 开启; 关掉
変更; 設定し; 増やし; 減らし; 上げ; 下げ; 無効に; 有効に
변경; 설정했; 늘렸; 줄였; 올렸; 낮췄; 비활성; 활성화
passé; changé; modifié; augmenté; réduit; baissé; désactivé; activé
geändert; erhöht; gesenkt; reduziert; gesetzt; deaktiviert; aktiviert
cambié; cambiamos; subí; subimos; bajé; aumenté; reduje; desactivé; activé
mudei; mudamos; aumentei; aumentamos; reduzi; diminuí; desativei; ativei
"""))

NEW_TOOL = Lexicon(phrases("""
first time using; first time with; for the first time; started using; start using;
starting to use; began using; switched to; switching to; migrated to;
migrating to; tried out; trying out; discovered; new tool; introduced; adopted; adopting;
first time
第一次用; 第一次使用; 首次使用; 开始用; 开始使用; 换成了; 改用; 切换到; 迁移到; 引入了; 试用了;
新工具; 第一次
初めて; はじめて; 使い始め; 導入; 乗り換え; 切り替え
처음; 사용하기 시작; 도입; 갈아탔; 전환했
première fois; découvert; passé à; migré vers; adopté; commencé à utiliser
zum ersten mal; erstes mal; umgestiegen auf; gewechselt zu
primera vez; por primera vez; empecé a usar; migramos a; cambiamos a
primeira vez; pela primeira vez; comecei a usar; migramos para; trocamos para
"""))

REPEAT = Lexicon(phrases("""
every time; each time; every deploy; every release; every build; every morning;
every day; every week; every single time; whenever; again and again; over and over;
each release; each deploy; repeatedly; yet again; every commit; every run; every pr;
every merge; every sprint; after every; before every; on every; after each; before each;
every monday; every tuesday; every wednesday; every thursday; every friday; every night;
every weekend; every month; each morning; each week
每次; 每回; 每当; 又要; 总是要; 老是要; 反复; 一遍又一遍; 每天; 每周
毎回; 毎日; 何度も; 繰り返し; そのたびに; たびに
매번; 매일; 매주; 매달; 반복; 때마다
à chaque fois; chaque fois; à chaque; encore une fois; à nouveau; tout le temps;
systématiquement; chaque matin; chaque jour; chaque déploiement; chaque semaine;
chaque lundi; chaque mardi; chaque mercredi; chaque jeudi; chaque vendredi; tous les jours
"""))

OBLIGATION = Lexicon(phrases("""
have to; has to; had to; must; need to; needs to; by hand; manually; keep having to;
remember to; got to; gotta; is needed; are needed; is required; are required; needs to be
都要; 都得; 还要; 需要; 手动; 必须; 得先; 要先; 手工
手で; 手動; 必要; しないと; なければ; しなきゃ
해야; 수동; 직접; 일일이
il faut; je dois; on doit; manuellement; à la main; faut; obligé
"""))

CAUSE_EFFECT = Lexicon(phrases("""
because; since; so that; therefore; due to; caused by; turned out; the reason; root cause;
leads to; results in; which means; otherwise; so the; that's why
因为; 由于; 所以; 导致; 原因; 因此; 否则; 结果
ため; ので; 原因; 그래서; 때문; 원인; 따라서
parce que; car; à cause; donc; sinon; c'est pourquoi
"""))

ACTION = Lexicon(phrases("""
use; run; set; add; install; pin; upgrade; downgrade; remove; replace; call; pass;
configure; enable; disable; restart; clear; delete; rename; export; import; wrap; check;
avoid; always; never; make sure; don't; do not; prefer
用; 加; 改; 设置; 安装; 升级; 删除; 重启; 清除; 不要; 一定要; 记得
使う; 追加; 変更; 設定; 削除; 再起動; 使用
사용; 추가; 변경; 설정; 삭제; 재시작; 반드시
utiliser; ajouter; lancer; installer; supprimer; redémarrer; vider; toujours; jamais
"""))

HEDGE = Lexicon(phrases("""
maybe; might; perhaps; probably; likely; not sure; i think; i guess; wondering; any idea;
any ideas; does anyone; how do i; how can i; should i
可能; 也许; 大概; 好像; 怎么办; 有人知道; 吗
たぶん; かもしれ; どうすれば; でしょうか
아마; 것 같; 어떻게; 까요
peut-être; probablement; comment faire; quelqu'un sait
"""))

PREFERENCE = Lexicon(phrases("""
prefer; prefers; preferred; i like; we like; i'd rather; we'd rather; don't like;
偏好; 喜欢; 更喜欢; 不喜欢; 習慣; 好み; 好き; 선호; 좋아; préfère; préférons; j'aime
"""))

SECTION_WORDS = {
    "architecture": Lexicon(phrases("""
architecture; design; module boundary; microservice; microservices; schema; database;
layer; layers; data model; dependency injection; 架构; 设计; 模块; 数据库; アーキテクチャ;
設計; 설계; 아키텍처; conception; base de données
""")),
    "workflow": Lexicon(phrases("""
deploy; deploys; deployment; release; releases; ci; pipeline; code review; merge;
pull request; workflow; staging; production; rollout; 部署; 发布; 流程; 上线; デプロイ;
リリース; 배포; 릴리스; déploiement; déployer; mise en production
""")),
    "patterns": Lexicon(phrases("""
pattern; patterns; idiom; convention; conventions; best practice; always use; never use;
规范; 约定; 模式; パターン; 規約; 패턴; 규칙; bonne pratique
""")),
    "preferences": PREFERENCE,
}

# Confirmations that say "it works" without saying how.
CONFIRM_ONLY = Lexicon(phrases("""
thanks; thank you; thx; great; perfect; awesome; nice; cool; works now; that worked;
that did it; 谢谢; 好了; 可以了; ありがとう; 감사; merci; parfait; ok; okay
"""))

# Outcome of an attempt, said by whoever tried it (episodes.py). A confirmation closes an
# episode with the last attempt as what worked; a denial marks that attempt as failed.
CONFIRM = Lexicon(phrases("""
that worked; that did it; that fixed it; that fixes it; that fixes the; that sorted it;
sorted it; did it; did the trick; does the trick; works now; working now; it works; it worked;
worked; works; fixed; solved; resolved; all green; green now; passes now; passing now;
that was it; that was the problem; that was the issue; nailed it; up and running;
goes through now; went through; builds now; runs now; compiles now; starts now; is gone;
went away; no longer; no more; succeeded; finished; passed; is green; went green
搞定; 好了; 可以了; 行了; 解决了; 修好了; 成功了; 正常了; 好使了; 能跑了; 通过了; 跑起来了;
起来了; 没问题了; 不报错了; 就好了; 才好; 装上了
直った; 直りました; 治った; 解決した; 解決しました; 動いた; 動きました; 通った; 通りました;
うまくいった; うまくいきました; できました; 消えた; 消えました; 解消
됐어요; 됐습니다; 됐다; 됐네요; 해결됐; 해결했; 해결되었; 고쳐졌; 잘 됩니다; 잘 돼요;
작동합니다; 작동해요; 성공했; 잘 돌아가; 잘 돌아갑니다
ça marche; ça fonctionne; ça passe; c'est bon; ça a marché; ça a fonctionné; résolu*;
corrigé; réglé; fonctionne maintenant; marche maintenant
funktioniert jetzt; funktioniert wieder; klappt jetzt; hat geklappt; läuft jetzt; läuft wieder;
behoben; gelöst
ya funciona; ahora funciona; funcionó; resuelto; solucionado; arreglado
funcionou; agora funciona; deu certo; resolvido; resolveu
"""))

DENY = Lexicon(phrases("""
still failing; still fails; still failed; still broken; still the same; still getting;
still get; still hangs; still hanging; still crashes; still crashing; still errors;
same error; same thing; same problem; same result; same issue; didn't work; did not work;
doesn't work; didn't help; did not help; doesn't help; no luck; nope; no change;
not working; nothing changed; no dice; no difference; didn't fix; did not fix;
is rejected; was rejected; gets rejected; neither worked; neither helped; none of them worked;
none worked; nothing worked; none of it helped; none of it worked; none of them helped;
nothing helped; kept failing; keeps failing; kept crashing; failed again; failed the same way
还是不行; 还是报错; 还是失败; 还是一样; 也不行; 都不行; 没用; 不管用; 没效果; 没有用;
依然; 仍然; 没解决; 还是卡
ダメ; だめ; 変わらず; 効果なし; 直らない; 直りません; 同じエラー; 解決しない
안 됐; 안 돼요; 안 됩니다; 소용없; 여전히; 같은 오류; 같은 에러; 효과가 없; 똑같
toujours pas; toujours la même; même erreur; même problème; sans succès; rien n'y fait;
ne change rien; ça ne marche pas; marche pas; pareil
immer noch; funktioniert nicht; läuft nicht; klappt nicht; geht nicht; gleicher fehler; derselbe fehler; hat nicht geholfen;
bringt nichts; keine änderung
sigue fallando; sigue igual; sigue sin; mismo error; no sirvió; no ayudó; nada cambió
continua falhando; continua igual; mesmo erro; não resolveu; não ajudou; nada mudou
"""))

# Words just before a confirmation that make it a hope, not a report ("should work").
HYPOTHETICAL = frozenset(["should", "will", "would", "could", "might", "may", "can", "to",
                          "hopefully", "probably", "if", "once", "until", "si", "devrait",
                          "sollte", "wenn", "falls", "debería", "debe", "deve", "deveria", "se"])
CJK_HYPOTHETICAL = ("应该", "应当", "也许", "可能", "如果", "はず", "かも", "면")
