"""What a malformed playbook is told: its JSON, its shape (pydantic's field errors), its graph (sea/playbook.py,
sea/lines.py) and what validation against the world refuses (sea/validate.py). The frame naming playbook,
node and field is words/_inputs.py's (`pb_playbook`, `pb_node`, `pb_field`)."""

from __future__ import annotations

JA: dict[str, str] = {
    # The text and the shape (sea/playbook.py).
    "pb_not_json": "JSON として読めません ({line} 行 {col} 文字目)",  # Python's own {msg} is English
    "pb_too_deep": "入れ子が深すぎて JSON として読めません",
    "pb_surrogate": "UTF-8 として正しくない文字 (\\ud800 のような対になっていないサロゲート) を含んでいます",
    "pb_not_object": "プレイブックは JSON のオブジェクトにしてください",
    "pb_bad_name": ("プレイブックの名前は識別子 (英字・数字・'_'、100 文字まで) にしてください "
                    "({value!r} が渡されました)"),
    "pb_no_such_node": "そのノードはありません",
    "pb_unknown_field": "知らない欄です",
    "pb_unknown_field_near": "知らない欄です ({close!r} のことですか?)",
    "pb_unknown_field_newer": ("知らない欄です。この SAIVerse より新しいプレイブック形式の欄で、動きを変えるかも"
                               "しれないので、このプレイブックは使いません (欄を消すか、null にすれば無視します)"),
    "pb_unknown_type": "知らないノードの種類 {value!r} です ({choices} のどれかにしてください)",
    "pd_missing": "この欄は必須です",
    "pd_string": "文字列にしてください ({value} が渡されました)",
    "pd_int": "整数にしてください ({value} が渡されました)",
    "pd_float": "数値にしてください ({value} が渡されました)",
    "pd_bool": "true か false にしてください ({value} が渡されました)",
    "pd_list": "配列にしてください ({value} が渡されました)",
    "pd_dict": "オブジェクトにしてください ({value} が渡されました)",
    "pd_literal": "{value} は使えません ({choices} のどれかにしてください)",
    "pd_other": "{value} はこの欄には使えません",
    # The graph (sea/playbook.py, `check_structure`).
    "pb_too_many_nodes": ("ノードが {count:,} 個あります。1 つのプレイブックは {limit:,} 個までです "
                          "(subplay ノードで呼び合うプレイブックに分けてください)"),
    "pb_no_nodes": "ノードがありません",
    "pb_duplicate_id": "ノード id {id!r} が重複しています",
    "pb_bad_start": "start_node {start!r} はノードではありません",
    "pb_missing_target": "存在しないノード {target!r} を指しています",
    "pb_subplay_needs": "subplay ノードには `playbook` が必要です",
    "pb_fallback_twice": "既定の行き先が 2 つ (`default` と `cases.default`) あり、違うノードを指しています",
    "pb_unreachable": "開始ノードからたどり着けません",
    # Against the world (sea/validate.py).
    "pv_param_system": "引数の名前を '_' で始めることはできません ('_' はシステムの名前空間です)",
    "pv_returns_system": "{name!r} を返しています。'_' で始まる変数は実行系のものです",
    "pv_writes_system": "{name!r} に書き込んでいます。'_' で始まる変数は実行系のものです",
    "pv_not_path": ("{value!r} は状態のパスではありません。args_input の値は変数の名前です (\"search.query\" のような"
                    "ドット区切りも可)。決まった値には {{\"$literal\": ...}} と書いてください"),
    "pv_unset": "{{{name}}} を読んでいますが、引数でもなく、どのノードも設定しません",
    "pv_tool_needs_action": "tool ノードには `action` (ツールの名前) が必要です",
    "pv_maps_missing": "出力 {src!r} を割り当てていますが、プレイブック {target!r} の output_schema にありません",
    "pv_set_needs": "set ノードには `assignments` が必要です",
    "pv_undeclared": ("引数 {key!r} を渡していますが、プレイブック {callee!r} はそれを宣言していません "
                      "(宣言: {declared})"),
    "pv_declares_nothing": "なし",
    "pv_required_missing": "プレイブック {callee!r} の必須の引数 {name!r} を渡していません",
}

EN: dict[str, str] = {
    "pb_not_json": "not valid JSON (line {line}, column {col}: {msg})",
    "pb_too_deep": "is nested too deeply to read as JSON",
    "pb_surrogate": "holds text that is not valid UTF-8 (a lone surrogate escape such as \\ud800)",
    "pb_not_object": "a playbook must be a JSON object",
    "pb_bad_name": "playbook names are identifiers (letters, digits, '_', at most 100), not {value!r}",
    "pb_no_such_node": "no such node",
    "pb_unknown_field": "unknown field",
    "pb_unknown_field_near": "unknown field (did you mean {close!r}?)",
    "pb_unknown_field_newer": ("unknown field: newer than this SAIVerse's playbook format, and it may change what "
                               "the playbook does, so the playbook is not used (remove it, or set it to null to "
                               "ignore it)"),
    "pb_unknown_type": "unknown node type {value!r} (expected {choices})",
    "pd_missing": "field required",
    "pd_string": "should be a string, not {value}",
    "pd_int": "should be a whole number, not {value}",
    "pd_float": "should be a number, not {value}",
    "pd_bool": "should be true or false, not {value}",
    "pd_list": "should be an array, not {value}",
    "pd_dict": "should be an object, not {value}",
    "pd_literal": "{value} is not allowed (expected {choices})",
    "pd_other": "{value} cannot be used in this field",
    "pb_too_many_nodes": ("has {count:,} nodes; a playbook may have at most {limit:,} (split it into playbooks "
                          "that call each other with subplay nodes)"),
    "pb_no_nodes": "has no nodes",
    "pb_duplicate_id": "duplicate node id {id!r}",
    "pb_bad_start": "start_node {start!r} is not a node",
    "pb_missing_target": "points to missing node {target!r}",
    "pb_subplay_needs": "subplay needs `playbook`",
    "pb_fallback_twice": "gives the fallback twice (`default` and `cases.default`) with different targets",
    "pb_unreachable": "is unreachable from the start node",
    "pv_param_system": "parameter names may not start with '_' (system namespace)",
    "pv_returns_system": "returns {name!r}: '_' variables belong to the runtime",
    "pv_writes_system": "writes {name!r}: '_' variables belong to the runtime",
    "pv_not_path": ("{value!r} is not a state path: args_input values name variables (dotted paths allowed, "
                    "e.g. \"search.query\"); write {{\"$literal\": ...}} for a fixed value"),
    "pv_unset": "reads {{{name}}}, which is neither a parameter nor set by any node",
    "pv_tool_needs_action": "tool node needs `action` (the tool name)",
    "pv_maps_missing": "maps output {src!r}, which playbook {target!r} does not declare in output_schema",
    "pv_set_needs": "set node needs `assignments`",
    "pv_undeclared": "passes argument {key!r}, which playbook {callee!r} does not declare (it declares: {declared})",
    "pv_declares_nothing": "nothing",
    "pv_required_missing": "does not pass required argument {name!r} of playbook {callee!r}",
}
