function t(n){return String(n??"").replace(/[&<>"']/g,o=>`&#${o.charCodeAt(0)};`)}var e=document.getElementById("app");e&&(e.innerHTML=`<header class="top"><a class="brand" href="/">fogproof</a></header>
<main><h1>${t("fogproof")}</h1><p class="muted">The host's pages.</p></main>`);
