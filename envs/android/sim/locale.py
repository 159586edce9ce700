"""UI strings per locale for the labels the 60 tasks pass through.

Android shows app names, Settings rows and Clock tabs in the device language;
B-MoCA's locale randomisation exists to test that. This table covers the app
labels and the Settings / Clock / quick-settings labels on the tasks' paths for
the languages of the 45 configurations (translations follow Android 10's
wording as closely as we know it; treat them as approximations). Any string
without an entry, and every string for a language without a table (ak-GH),
stays English.
"""
from __future__ import annotations

KEYS = ("Calendar", "Camera", "Clock", "Contacts", "Files", "Maps", "Messages", "Phone", "Photos", "Play Music",
        "Play Store", "Settings", "Network & internet", "Connected devices", "Apps & notifications", "Battery",
        "Display", "Sound", "Storage", "System", "Wi-Fi", "Airplane mode", "Brightness level", "Dark theme",
        "Media volume", "Call volume", "Ring volume", "Alarm volume", "Vibrate for calls", "Languages & input",
        "Languages", "Add a language", "Alarm", "Timer", "Stopwatch", "Bluetooth", "Pair new device", "Search settings")

_T: dict[str, tuple[str, ...]] = {
    "fr": ("Agenda", "Appareil photo", "Horloge", "Contacts", "Fichiers", "Maps", "Messages", "Téléphone", "Photos",
           "Play Musique", "Play Store", "Paramètres", "Réseau et Internet", "Appareils connectés",
           "Applications et notifications", "Batterie", "Affichage", "Son", "Stockage", "Système", "Wi-Fi",
           "Mode Avion", "Niveau de luminosité", "Thème sombre", "Volume des contenus multimédias", "Volume des appels",
           "Volume de la sonnerie", "Volume de l'alarme", "Vibreur pour les appels", "Langues et saisie", "Langues",
           "Ajouter une langue", "Alarme", "Minuteur", "Chronomètre", "Bluetooth", "Associer un nouvel appareil",
           "Rechercher dans les paramètres"),
    "es": ("Calendario", "Cámara", "Reloj", "Contactos", "Archivos", "Maps", "Mensajes", "Teléfono", "Fotos",
           "Play Música", "Play Store", "Configuración", "Internet y redes", "Dispositivos conectados",
           "Apps y notificaciones", "Batería", "Pantalla", "Sonido", "Almacenamiento", "Sistema", "Wi-Fi",
           "Modo de avión", "Nivel de brillo", "Tema oscuro", "Volumen multimedia", "Volumen de llamada",
           "Volumen del tono", "Volumen de alarma", "Vibrar en llamadas", "Idiomas y entrada", "Idiomas",
           "Agregar un idioma", "Alarma", "Temporizador", "Cronómetro", "Bluetooth", "Vincular nuevo dispositivo",
           "Buscar en la configuración"),
    "de": ("Kalender", "Kamera", "Uhr", "Kontakte", "Dateien", "Maps", "Messages", "Telefon", "Fotos", "Play Musik",
           "Play Store", "Einstellungen", "Netzwerk & Internet", "Verbundene Geräte", "Apps & Benachrichtigungen",
           "Akku", "Display", "Ton", "Speicher", "System", "WLAN", "Flugmodus", "Helligkeit", "Dunkles Design",
           "Medienlautstärke", "Anruflautstärke", "Klingeltonlautstärke", "Weckerlautstärke", "Bei Anrufen vibrieren",
           "Sprachen & Eingabe", "Sprachen", "Sprache hinzufügen", "Wecker", "Timer", "Stoppuhr", "Bluetooth",
           "Neues Gerät koppeln", "Einstellungen durchsuchen"),
    "pt": ("Agenda", "Câmera", "Relógio", "Contatos", "Arquivos", "Maps", "Mensagens", "Telefone", "Fotos",
           "Play Música", "Play Store", "Configurações", "Rede e Internet", "Dispositivos conectados",
           "Apps e notificações", "Bateria", "Tela", "Som", "Armazenamento", "Sistema", "Wi-Fi", "Modo avião",
           "Nível de brilho", "Tema escuro", "Volume de mídia", "Volume de chamadas", "Volume do toque",
           "Volume do alarme", "Vibrar para chamadas", "Idiomas e entrada", "Idiomas", "Adicionar um idioma",
           "Alarme", "Timer", "Cronômetro", "Bluetooth", "Parear novo dispositivo", "Pesquisar configurações"),
    "ko": ("캘린더", "카메라", "시계", "주소록", "파일", "지도", "메시지", "전화", "포토", "Play 뮤직", "Play 스토어", "설정",
           "네트워크 및 인터넷", "연결된 기기", "앱 및 알림", "배터리", "디스플레이", "소리", "저장용량", "시스템", "Wi-Fi",
           "비행기 모드", "밝기 수준", "어두운 테마", "미디어 볼륨", "통화 볼륨", "벨소리 볼륨", "알람 볼륨", "전화 수신 시 진동",
           "언어 및 입력", "언어", "언어 추가", "알람", "타이머", "스톱워치", "블루투스", "새 기기와 페어링", "설정 검색"),
    "ja": ("カレンダー", "カメラ", "時計", "連絡帳", "ファイル", "マップ", "メッセージ", "電話", "フォト", "Play Music",
           "Play ストア", "設定", "ネットワークとインターネット", "接続済みのデバイス", "アプリと通知", "電池", "ディスプレイ", "音",
           "ストレージ", "システム", "Wi-Fi", "機内モード", "明るさのレベル", "ダークテーマ", "メディアの音量", "通話の音量",
           "着信音の音量", "アラームの音量", "着信時にバイブレーション", "言語と入力", "言語", "言語を追加", "アラーム", "タイマー",
           "ストップウォッチ", "Bluetooth", "新しいデバイスとペア設定", "設定を検索"),
    "zh": ("日历", "相机", "时钟", "通讯录", "文件", "地图", "信息", "电话", "相册", "Play 音乐", "Play 商店", "设置",
           "网络和互联网", "已连接的设备", "应用和通知", "电池", "显示", "提示音", "存储", "系统", "WLAN", "飞行模式", "亮度",
           "深色主题背景", "媒体音量", "通话音量", "铃声音量", "闹钟音量", "来电时振动", "语言和输入法", "语言", "添加语言", "闹钟",
           "计时器", "秒表", "蓝牙", "与新设备配对", "搜索设置"),
    "ru": ("Календарь", "Камера", "Часы", "Контакты", "Файлы", "Карты", "Сообщения", "Телефон", "Фото", "Play Музыка",
           "Play Маркет", "Настройки", "Сеть и Интернет", "Подключенные устройства", "Приложения и уведомления",
           "Батарея", "Экран", "Звук", "Хранилище", "Система", "Wi-Fi", "Режим полета", "Яркость", "Тёмная тема",
           "Громкость мультимедиа", "Громкость звонка", "Громкость рингтона", "Громкость будильника",
           "Вибрация при звонке", "Язык и ввод", "Языки", "Добавить язык", "Будильник", "Таймер", "Секундомер",
           "Bluetooth", "Подключить новое устройство", "Поиск настроек"),
    "ar": ("التقويم", "الكاميرا", "الساعة", "جهات الاتصال", "الملفات", "الخرائط", "الرسائل", "الهاتف", "الصور",
           "موسيقى Play", "متجر Play", "الإعدادات", "الشبكة والإنترنت", "الأجهزة المتصلة", "التطبيقات والإشعارات",
           "البطارية", "الشاشة", "الصوت", "مساحة التخزين", "النظام", "Wi-Fi", "وضع الطيران", "مستوى السطوع",
           "مظهر داكن", "مستوى صوت الوسائط", "مستوى صوت المكالمة", "مستوى صوت الرنين", "مستوى صوت المنبه",
           "الاهتزاز عند المكالمات", "اللغات والإدخال", "اللغات", "إضافة لغة", "المنبه", "المؤقت", "ساعة الإيقاف",
           "بلوتوث", "إقران جهاز جديد", "البحث في الإعدادات"),
    "ur": ("کیلنڈر", "کیمرا", "گھڑی", "رابطے", "فائلز", "Maps", "پیغامات", "فون", "تصاویر", "Play موسیقی", "Play اسٹور",
           "ترتیبات", "نیٹ ورک اور انٹرنیٹ", "منسلک آلات", "ایپس اور اطلاعات", "بیٹری", "ڈسپلے", "آواز", "اسٹوریج",
           "سسٹم", "Wi-Fi", "ہوائی جہاز وضع", "چمک کی سطح", "گہری تھیم", "میڈیا والیوم", "کال والیوم", "رنگ والیوم",
           "الارم والیوم", "کالز کیلئے وائبریٹ کریں", "زبانیں اور ان پٹ", "زبانیں", "ایک زبان شامل کریں", "الارم",
           "ٹائمر", "اسٹاپ واچ", "بلوٹوتھ", "نئے آلہ کا جوڑا بنائیں", "ترتیبات تلاش کریں"),
    "hi": ("कैलेंडर", "कैमरा", "घड़ी", "संपर्क", "Files", "Maps", "Messages", "फ़ोन", "फ़ोटो", "Play संगीत", "Play Store",
           "सेटिंग", "नेटवर्क और इंटरनेट", "कनेक्ट किए गए डिवाइस", "ऐप्लिकेशन और सूचनाएं", "बैटरी", "डिसप्ले", "ध्वनि",
           "मेमोरी", "सिस्टम", "वाई-फ़ाई", "हवाई जहाज़ मोड", "स्क्रीन की रोशनी का स्तर", "गहरे रंग वाली थीम", "मीडिया की आवाज़",
           "कॉल की आवाज़", "रिंग की आवाज़", "अलार्म की आवाज़", "कॉल के लिए वाइब्रेट करें", "भाषाएं और इनपुट", "भाषाएं",
           "भाषा जोड़ें", "अलार्म", "टाइमर", "स्टॉपवॉच", "ब्लूटूथ", "नया डिवाइस जोड़ें", "सेटिंग खोजें"),
}
TABLES: dict[str, dict[str, str]] = {}
for _lang, _vals in _T.items():
    if len(_vals) != len(KEYS):
        raise ValueError(f"locale table {_lang!r} has {len(_vals)} strings for {len(KEYS)} keys")
    TABLES[_lang] = dict(zip(KEYS, _vals))


def translate(locale: str, text: str) -> str:
    """``text`` in the UI language of ``locale`` (English when there is no entry)."""
    lang = locale.replace("_", "-").split("-")[0].lower()
    return TABLES.get(lang, {}).get(text, text)
